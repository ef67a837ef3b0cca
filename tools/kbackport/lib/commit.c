#include "commit.h"
#include "child.h"
#include "buf.h"
#include "error.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Append "[ text ]" word-wrapped at 72 columns, continuation lines indented
 * by two spaces; the closing " ]" counts as part of the last word.
 */
static void put_note(struct kb_buf *out, const char *note)
{
	const char *p = note, *next;
	size_t col = 1, wlen, need;

	kb_buf_puts(out, "[");
	for (p += strspn(p, " \n\t"); *p; p = next) {
		wlen = strcspn(p, " \n\t");
		next = p + wlen + strspn(p + wlen, " \n\t");
		need = 1 + wlen + (*next ? 0 : 2);
		if (col + need > 72 && col > 2) {
			kb_buf_puts(out, "\n ");
			col = 1;
		}
		kb_buf_putc(out, ' ');
		kb_buf_put(out, p, wlen);
		col += 1 + wlen;
	}
	kb_buf_puts(out, " ]\n");
}

static bool is_hex_sha(const char *s, size_t n)
{
	size_t i;

	if (n != 40)
		return false;
	for (i = 0; i < n; i++)
		if (!strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/*
 * Does the body start with stable's upstream line ("commit <sha>
 * upstream." or "[ Upstream commit <sha> ]")? Then the patch is itself a
 * stable commit, and the backport keeps that line instead of adding one.
 */
static bool has_upstream_line(const char *body)
{
	size_t n = strcspn(body, "\n");

	if (n == 57 && !strncmp(body, "commit ", 7) && !strncmp(body + 47, " upstream.", 10))
		return is_hex_sha(body + 7, 40);
	if (n == 60 && !strncmp(body, "[ Upstream commit ", 18) && !strncmp(body + 58, " ]", 2))
		return is_hex_sha(body + 18, 40);
	return false;
}

int kb_commit_message(char **out, const struct kb_fix *fix,
		      const struct kb_variant *variant)
{
	struct kb_buf msg = KB_BUF_INIT;
	const char *body = fix->patch->body ? fix->patch->body : "";
	int err;

	*out = NULL;
	if (has_upstream_line(body))
		err = kb_buf_printf(&msg, "%s\n\n%s", fix->subject, body);
	else if ((err = kb_buf_printf(&msg, "%s\n\ncommit %s upstream.\n", fix->subject,
				      fix->upstream)) == 0 && *body)
		kb_buf_printf(&msg, "\n%s", body);
	if (err < 0)
		goto done;
	if (variant && variant->note)
		put_note(&msg, variant->note);
	if (!msg.ptr) {
		err = kb_error_set(KB_ENOMEM, "out of memory");
		goto done;
	}
	*out = kb_buf_detach(&msg);
done:
	kb_buf_release(&msg);
	return err;
}

int kb_backport_ref(char **out, const char *fix_id, const char *branch)
{
	struct kb_buf name = KB_BUF_INIT;
	int valid = 0;

	*out = NULL;
	if (kb_buf_printf(&name, "refs/heads/backport/%s/%s", fix_id, branch) < 0)
		return KB_ENOMEM;
	if (git_reference_name_is_valid(&valid, name.ptr) < 0 || !valid) {
		kb_buf_release(&name);
		return kb_error_set(KB_EINVALID, "'refs/heads/backport/%s/%s' is not a valid ref name",
				    fix_id, branch);
	}
	*out = kb_buf_detach(&name);
	return 0;
}

int kb_commit_author(git_signature **out, const struct kb_fix *fix)
{
	const struct kb_patch *p = fix->patch;
	int err;

	if (!p->author_name || !p->author_email || !p->date)
		return kb_error_set(KB_EINVALID, "fix '%s': the upstream patch has no From: or Date: header",
				    fix->id);
	if ((err = git_signature_new(out, p->author_name, p->author_email,
				     (git_time_t)p->time, p->tz_offset)) < 0)
		return kb_error_git(err, "fix '%s': bad author", fix->id);
	return 0;
}

/* GIT_COMMITTER_DATE as "<epoch> <+hhmm>", the form git itself writes. */
static int committer_date(git_time_t *when, int *offset)
{
	const char *env = getenv("GIT_COMMITTER_DATE");
	char *end;
	long long t;
	long tz;

	if (!env || !*env)
		return 0;
	if (*env == '@')
		env++;
	t = strtoll(env, &end, 10);
	if (end == env || *end != ' ')
		return kb_error_set(KB_EINVALID, "GIT_COMMITTER_DATE '%s' is not '<epoch> <+hhmm>'", env);
	tz = strtol(end + 1, &end, 10);
	if (*end)
		return kb_error_set(KB_EINVALID, "GIT_COMMITTER_DATE '%s' is not '<epoch> <+hhmm>'", env);
	*when = (git_time_t)t;
	*offset = (int)((tz / 100) * 60 + (tz % 100));
	return 1;
}

/*
 * No user.name/user.email: like git, fall back to the login name and
 * user@host, so a fresh machine can run the demo.
 */
static int guess_identity(git_signature **out)
{
	struct passwd *pw = getpwuid(getuid());
	char host[256] = "localhost", email[512], name[256];
	const char *user = pw && pw->pw_name ? pw->pw_name : "kbackport";
	int err;

	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = '\0';
	snprintf(name, sizeof(name), "%.*s",
		 pw && pw->pw_gecos && *pw->pw_gecos ? (int)strcspn(pw->pw_gecos, ",") : 255,
		 pw && pw->pw_gecos && *pw->pw_gecos ? pw->pw_gecos : user);
	snprintf(email, sizeof(email), "%s@%s", user, host);
	if ((err = git_signature_now(out, name, email)) < 0)
		return kb_error_git(err, "no committer: set user.name and user.email in git config");
	return 0;
}

int kb_committer(git_signature **out, git_repository *repo)
{
	const char *name = getenv("GIT_COMMITTER_NAME");
	const char *email = getenv("GIT_COMMITTER_EMAIL");
	git_signature *def = NULL;
	git_time_t when = 0;
	int offset = 0, dated, err;

	*out = NULL;
	if ((dated = committer_date(&when, &offset)) < 0)
		return dated;
	if ((!name || !email) && git_signature_default(&def, repo) < 0 &&
	    (err = guess_identity(&def)) < 0)
		return err;
	if (!name)
		name = def->name;
	if (!email)
		email = def->email;
	err = dated ? git_signature_new(out, name, email, when, offset) :
		      git_signature_now(out, name, email);
	git_signature_free(def);
	if (err < 0)
		return kb_error_git(err, "bad committer '%s <%s>'", name, email);
	return 0;
}

/* Does `refname` already point at the commit we would write? */
static int existing_matches(git_oid *found, git_repository *repo, const char *refname,
			    git_commit *base, const git_oid *tree, const char *message)
{
	git_reference *ref = NULL;
	git_commit *commit = NULL;
	int match = 0;

	memset(found, 0, sizeof(*found));
	if (git_reference_lookup(&ref, repo, refname) < 0)
		return 0;
	if (git_reference_type(ref) == GIT_REFERENCE_DIRECT) {
		git_oid_cpy(found, git_reference_target(ref));
		match = git_commit_lookup(&commit, repo, found) == 0 &&
			git_commit_parentcount(commit) == 1 &&
			git_oid_equal(git_commit_parent_id(commit, 0), git_commit_id(base)) &&
			git_oid_equal(git_commit_tree_id(commit), tree) &&
			!strcmp(git_commit_message(commit), message);
	}
	git_commit_free(commit);
	git_reference_free(ref);
	return match;
}

static int head_is(git_repository *repo, const char *refname)
{
	git_reference *head = NULL;
	int is = 0;

	if (git_reference_lookup(&head, repo, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC)
		is = !strcmp(git_reference_symbolic_target(head), refname);
	git_reference_free(head);
	return is;
}

int kb_ref_check_lock(git_repository *repo, const char *refname)
{
	struct kb_buf lock = KB_BUF_INIT;
	int err;

	if ((err = kb_buf_printf(&lock, "%s%s.lock", git_repository_commondir(repo),
				 refname)) < 0)
		return err;
	if (access(lock.ptr, F_OK) == 0)
		err = kb_error_set(KB_EEXISTS, "cannot lock '%s': '%s' exists "
				   "(another git at work, or a stale lock to remove)",
				   refname, lock.ptr);
	kb_buf_release(&lock);
	return err;
}

int kb_commit_backport(git_oid *commit_id, bool *created, git_repository *repo,
		       const char *refname, git_commit *base, const git_oid *tree_id,
		       const char *message, const git_signature *author,
		       const git_signature *committer)
{
	const git_commit *parents[1] = { base };
	git_reference *ref = NULL;
	git_tree *tree = NULL;
	sigset_t saved;
	git_oid old;
	int err;

	*created = false;
	if (existing_matches(&old, repo, refname, base, tree_id, message)) {
		git_oid_cpy(commit_id, &old);
		return 0;
	}
	if (head_is(repo, refname))
		return kb_error_set(KB_EEXISTS, "'%s' is checked out (HEAD points at it): switch branches first",
				    refname);
	if ((err = git_tree_lookup(&tree, repo, tree_id)) < 0) {
		err = kb_error_git(err, "cannot read the new tree");
		goto done;
	}
	if ((err = git_commit_create(commit_id, repo, NULL, author, committer, NULL,
				     message, tree, 1, parents)) < 0) {
		err = kb_error_git(err, "cannot write the backport commit");
		goto done;
	}
	kb_signals_hold(&saved);
	err = git_oid_is_zero(&old) ?
		git_reference_create(&ref, repo, refname, commit_id, 0, "kbackport: backport") :
		git_reference_create_matching(&ref, repo, refname, commit_id, 1, &old,
					      "kbackport: backport");
	kb_signals_release(&saved);
	if (err < 0) {
		err = kb_error_git(err, "cannot update '%s'", refname);
		goto done;
	}
	*created = true;
done:
	git_reference_free(ref);
	git_tree_free(tree);
	return err;
}
