#include "boot/pvh.h"
#include "util/buf.h"
#include "util/error.h"
#include "util/fsutil.h"

#include <elf.h>
#include <lzma.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char xz_magic[6] = { '\xfd', '7', 'z', 'X', 'Z', '\0' };

/* Larger than any kernel: a payload that grows past it is not one. */
#define MAX_VMLINUX ((size_t)1 << 30)

/* One whole xz stream from `in` into *out; trailing bytes are ignored. */
static int unxz(char **out, size_t *out_len, const char *in, size_t len)
{
	lzma_stream s = LZMA_STREAM_INIT;
	size_t cap = len * 4 + 4096;
	char *buf = NULL, *grown;
	lzma_ret ret;
	int err = 0;

	*out = NULL;
	if (lzma_stream_decoder(&s, UINT64_MAX, 0) != LZMA_OK)
		return kb_error_oom();
	if (!(buf = malloc(cap))) {
		err = kb_error_oom();
		goto done;
	}
	s.next_in = (const uint8_t *)in;
	s.avail_in = len;
	s.next_out = (uint8_t *)buf;
	s.avail_out = cap;
	while ((ret = lzma_code(&s, LZMA_FINISH)) == LZMA_OK || ret == LZMA_BUF_ERROR) {
		if (s.avail_out || cap >= MAX_VMLINUX) {
			err = kb_error_set(KB_EINVALID, "the xz payload %s", s.avail_out ?
					   "is cut short" : "is larger than any kernel");
			goto done;
		}
		if (!(grown = realloc(buf, cap * 2))) {
			err = kb_error_oom();
			goto done;
		}
		buf = grown;
		s.next_out = (uint8_t *)buf + cap;
		s.avail_out = cap;
		cap *= 2;
	}
	if (ret != LZMA_STREAM_END) {
		err = kb_error_set(KB_EINVALID, "the xz payload does not decompress (liblzma error %d)",
				   (int)ret);
		goto done;
	}
	*out = buf;
	*out_len = (size_t)s.total_out;
	buf = NULL;
done:
	free(buf);
	lzma_end(&s);
	return err;
}

int kb_pvh_extract(char **out, size_t *out_len, const char *bzimage, size_t len)
{
	const char *p = bzimage, *end = bzimage + len;
	int err = kb_error_set(KB_ENOTFOUND, "no xz payload in the image");

	*out = NULL;
	*out_len = 0;
	while ((p = memmem(p, (size_t)(end - p), xz_magic, sizeof(xz_magic)))) {
		if ((err = unxz(out, out_len, p, (size_t)(end - p))) == KB_ENOMEM)
			return err;
		if (!err && (*out_len < SELFMAG || memcmp(*out, ELFMAG, SELFMAG))) {
			free(*out);
			*out = NULL;
			err = kb_error_set(KB_EINVALID, "the xz payload is not an ELF image");
		}
		if (!err)
			return 0;
		p++;
	}
	return err;
}

/* The notes of one PT_NOTE segment: a "Xen" note of the PVH entry type? */
static bool notes_have_entry(const char *n, size_t len)
{
	Elf64_Nhdr h;
	size_t name, desc;

	while (len >= sizeof(h)) {
		memcpy(&h, n, sizeof(h));
		name = ((size_t)h.n_namesz + 3) & ~(size_t)3;
		desc = ((size_t)h.n_descsz + 3) & ~(size_t)3;
		if (name > len - sizeof(h) || desc > len - sizeof(h) - name)
			return false;
		if (h.n_type == KB_PVH_NOTE_TYPE && h.n_namesz == 4 &&
		    !memcmp(n + sizeof(h), "Xen", 4) && h.n_descsz >= 4)
			return true;
		n += sizeof(h) + name + desc;
		len -= sizeof(h) + name + desc;
	}
	return false;
}

bool kb_pvh_has_entry(const char *elf, size_t len)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	size_t i;

	if (len < sizeof(eh))
		return false;
	memcpy(&eh, elf, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phoff > len ||
	    (size_t)eh.e_phnum * sizeof(ph) > len - eh.e_phoff)
		return false;
	for (i = 0; i < eh.e_phnum; i++) {
		memcpy(&ph, elf + eh.e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_NOTE && ph.p_offset <= len && ph.p_filesz <= len - ph.p_offset &&
		    notes_have_entry(elf + ph.p_offset, ph.p_filesz))
			return true;
	}
	return false;
}

/* Extract and check: the vmlinux, or why not (both malloc'ed, one NULL). */
static int extract_checked(char **elf, size_t *elf_len, char **why, const char *data,
			   size_t len)
{
	int err;

	*why = NULL;
	if ((err = kb_pvh_extract(elf, elf_len, data, len)) == KB_ENOMEM)
		return err;
	if (!err && !kb_pvh_has_entry(*elf, *elf_len)) {
		free(*elf);
		*elf = NULL;
		*why = kb_strdup("the kernel has no PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY)");
	} else if (err) {
		*why = kb_strdup(kb_error_last());
		kb_error_clear();
	}
	return *elf || *why ? 0 : kb_error_oom();
}

int kb_pvh_image(char **out, char **why, const char *bzimage, const char *cachedir)
{
	struct kb_buf vmlinux = KB_BUF_INIT, no = KB_BUF_INIT;
	char *data = NULL, *elf = NULL, hash[65];
	size_t len = 0, elf_len = 0, removed;
	int err;

	*out = *why = NULL;
	if ((err = kb_read_file(&data, &len, bzimage)) < 0 ||
	    (err = kb_sha256_hex(hash, data, len)) < 0 ||
	    (err = kb_buf_printf(&vmlinux, "%s/%s.vmlinux", cachedir, hash)) < 0 ||
	    (err = kb_buf_printf(&no, "%s/%s.no-pvh", cachedir, hash)) < 0)
		goto done;
	if (kb_path_exists(vmlinux.ptr)) {
		if ((err = kb_cache_touch(vmlinux.ptr)) == 0)
			*out = kb_buf_detach(&vmlinux);
		goto done;
	}
	if (kb_read_file(why, NULL, no.ptr) == 0) {
		err = kb_cache_touch(no.ptr);
		goto done;
	}
	kb_error_clear();
	if ((err = extract_checked(&elf, &elf_len, why, data, len)) < 0 ||
	    (err = kb_mkdir_p(cachedir)) < 0)
		goto done;
	if (elf && (err = kb_write_file_atomic(vmlinux.ptr, elf, elf_len)) == 0)
		*out = kb_buf_detach(&vmlinux);
	else if (!elf)
		err = kb_write_atomic(no.ptr, *why);
	if (!err && kb_cache_prune(&removed, cachedir, KB_PVH_CACHE_KEEP) < 0)
		kb_error_clear();	/* a cache a little too large is no failure */
done:
	if (err < 0) {
		free(*why);
		*why = NULL;
		err = kb_error_prefix(err, "cannot extract the vmlinux of '%s'", bzimage);
	}
	free(data);
	free(elf);
	kb_buf_release(&vmlinux);
	kb_buf_release(&no);
	return err;
}
