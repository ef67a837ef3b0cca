#include "apply/commit.h"
#include "util/interrupt.h"
#include "util/buf.h"
#include "util/error.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	return kb_commit_message_variants(out, fix, &variant, variant ? 1 : 0);
}

int kb_commit_message_variants(char **out, const struct kb_fix *fix,
			       const struct kb_variant *const *variants, size_t n)
{
	size_t i;
	struct kb_buf msg = KB_BUF_INIT;
	const char *body = fix->patch->body ? fix->patch->body : "";
	int err;

	*out = NULL;
	if (has_upstream_line(body)) {
		kb_buf_printf(&msg, "%s\n\n%s", fix->subject, body);
	} else {
		if (!fix->upstream)	/* no upstream commit to name: as git am writes it */
			kb_buf_printf(&msg, "%s\n", fix->subject);
		else
			kb_buf_printf(&msg, "%s\n\ncommit %s upstream.\n", fix->subject,
				      fix->upstream);
		if (*body)
			kb_buf_printf(&msg, "\n%s", body);
	}
	for (i = 0; i < n; i++)
		if (variants[i] && variants[i]->note)
			put_note(&msg, variants[i]->note);
	if ((err = kb_buf_check(&msg)) < 0)
		goto done;
	if (!msg.ptr) {
		err = kb_error_oom();
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
	if (kb_fix_id_reserved(fix_id))
		return kb_error_set(KB_EINVALID, "'%s' cannot be a fix id: %s", fix_id,
				    KB_FIX_ID_RESERVED_WHY);
	if (kb_buf_printf(&name, "refs/heads/backport/%s/%s", fix_id, branch) < 0)
		return kb_error_oom();
	if (git_reference_name_is_valid(&valid, name.ptr) < 0 || !valid) {
		kb_buf_release(&name);
		return kb_error_set(KB_EINVALID, "'refs/heads/backport/%s/%s' is not a valid ref name",
				    fix_id, branch);
	}
	*out = kb_buf_detach(&name);
	return 0;
}

/*
 * What a commit may carry: git fsck wants the zone as [+-]hhmm, git's own
 * date parser takes hours below 24 and minutes below 60, and libgit2 1.5
 * writes the time as 32 unsigned bits (a negative or larger time would be
 * written as another one).
 */
#define KB_TIME_MAX 4294967295LL
#define KB_ZONE_MAX (23 * 60 + 59)

static bool date_ok(long long time, int offset)
{
	return time >= 0 && time <= KB_TIME_MAX && offset >= -KB_ZONE_MAX && offset <= KB_ZONE_MAX;
}

/*
 * libgit2 writes a name or address as given: a line break in it would
 * add header lines to the commit (git fsck: badName), any other control
 * character would reach every terminal that shows the commit.
 */
static bool has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

int kb_commit_author(git_signature **out, const struct kb_fix *fix)
{
	const struct kb_patch *p = fix->patch;
	int err;

	*out = NULL;
	if (!p->author_name || !p->author_email || !p->date)
		return kb_error_set(KB_EINVALID, "fix '%s': the upstream patch has no From: or Date: header",
				    fix->id);
	if (has_control(p->author_name) || has_control(p->author_email))
		return kb_error_set(KB_EINVALID, "fix '%s': the upstream patch's author '%s <%s>' "
				    "holds control characters", fix->id, p->author_name, p->author_email);
	if (!date_ok(p->time, p->tz_offset))
		return kb_error_set(KB_EINVALID, "fix '%s': the upstream patch's Date: is out of range "
				    "for a git commit (time %lld, time zone %c%02d%02d)", fix->id,
				    (long long)p->time, p->tz_offset < 0 ? '-' : '+',
				    abs(p->tz_offset) / 60, abs(p->tz_offset) % 60);
	if ((err = git_signature_new(out, p->author_name, p->author_email,
				     (git_time_t)p->time, p->tz_offset)) < 0)
		return kb_error_git(err, "fix '%s': bad author", fix->id);
	return 0;
}

/* "[+-]hhmm" (four digits), in minutes east of UTC; false when malformed. */
static bool parse_zone(int *offset, const char *s)
{
	int hh, mm;

	if ((s[0] != '+' && s[0] != '-') || strspn(s + 1, "0123456789") != 4 || s[5])
		return false;
	hh = (s[1] - '0') * 10 + (s[2] - '0');
	mm = (s[3] - '0') * 10 + (s[4] - '0');
	/* well-formed but out of range: left for date_ok() to refuse */
	*offset = hh > 23 || mm > 59 ? KB_ZONE_MAX + 1 : hh * 60 + mm;
	if (s[0] == '-')
		*offset = -*offset;
	return true;
}

/*
 * GIT_COMMITTER_DATE as "<epoch> <+hhmm>" (or "@<epoch> <+hhmm>"), the
 * form git itself writes; what git would refuse or fsck reject is refused.
 */
static int committer_date(git_time_t *when, int *offset)
{
	const char *env = getenv("GIT_COMMITTER_DATE"), *p;
	unsigned long long t;
	size_t digits;
	bool negative;
	char *end;

	if (!env || !*env)
		return 0;
	p = env + (*env == '@');
	negative = *p == '-';
	digits = strspn(p + negative, "0123456789");
	if (!digits || p[negative + digits] != ' ' || !parse_zone(offset, p + negative + digits + 1))
		return kb_error_set(KB_EINVALID, "GIT_COMMITTER_DATE '%s' is not '<epoch> <+hhmm>'", env);
	errno = 0;
	t = strtoull(p + negative, &end, 10);
	if (negative || errno == ERANGE || t > (unsigned long long)KB_TIME_MAX)
		return kb_error_set(KB_EINVALID, "GIT_COMMITTER_DATE '%s': the time is out of range "
				    "(0 to %lld seconds since 1970)", env, KB_TIME_MAX);
	if (!date_ok((long long)t, *offset))
		return kb_error_set(KB_EINVALID, "GIT_COMMITTER_DATE '%s': time zone '%s' is out of "
				    "range (hours below 24, minutes below 60)", env, end + 1);
	*when = (git_time_t)t;
	return 1;
}

/*
 * The identity guessed for want of user.name/user.email, as commits got
 * it, and whether one such commit was written: read by a signal handler
 * too, so plain arrays, filled before `guess_used` is set.
 */
static char guess_name[256], guess_email[512];
static volatile sig_atomic_t guess_made, guess_used;

static void guess_record(const char *name, const char *email)
{
	snprintf(guess_name, sizeof(guess_name), "%s", name);
	snprintf(guess_email, sizeof(guess_email), "%s", email);
	guess_made = 1;
}

void kb_committer_written(const git_signature *committer)
{
	if (guess_made && !strcmp(committer->name, guess_name) &&
	    !strcmp(committer->email, guess_email))
		guess_used = 1;
}

bool kb_committer_guessed(const char **name, const char **email)
{
	if (!guess_used)
		return false;
	*name = guess_name;
	*email = guess_email;
	return true;
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
	bool guessed = false;

	*out = NULL;
	if ((dated = committer_date(&when, &offset)) < 0)
		return dated;
	if ((!name || !email) && git_signature_default(&def, repo) < 0) {
		if ((err = guess_identity(&def)) < 0)
			return err;
		guessed = true;
	}
	if (!name)
		name = def->name;
	if (!email)
		email = def->email;
	if (has_control(name) || has_control(email)) {
		git_signature_free(def);
		return kb_error_set(KB_EINVALID, "bad committer '%s <%s>': control characters",
				    name, email);
	}
	err = dated ? git_signature_new(out, name, email, when, offset) :
		      git_signature_now(out, name, email);
	if (err == 0 && guessed)
		guess_record((*out)->name, (*out)->email);
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

/* `path` without its trailing slashes, malloc'ed. */
static int dup_path(char **out, const char *path)
{
	size_t len = strlen(path);

	while (len > 1 && path[len - 1] == '/')
		len--;
	return (*out = kb_strndup(path, len)) ? 0 : kb_error_oom();
}

/*
 * The HEAD file of worktree `name` read as git does, for a worktree that
 * libgit2 cannot open (its directory was removed without `git worktree
 * remove`): git still counts its branch as checked out.
 */
static int head_file_is(int *is, git_repository *repo, const char *name, const char *refname)
{
	struct kb_buf path = KB_BUF_INIT;
	char *text = NULL;
	int err;

	*is = 0;
	if ((err = kb_buf_printf(&path, "%sworktrees/%s/HEAD", git_repository_commondir(repo),
				 name)) == 0 &&
	    (err = kb_read_file(&text, NULL, path.ptr)) == 0) {
		text[strcspn(text, "\n")] = '\0';
		*is = !strncmp(text, "ref: ", 5) && !strcmp(text + 5, refname);
	}
	free(text);
	kb_buf_release(&path);
	return err;
}

/* Is `refname` the HEAD of the linked worktree `name` of `repo`? */
static int worktree_head_is(char **where, git_repository *repo, const char *name,
			    const char *refname)
{
	git_worktree *wt = NULL;
	git_repository *wt_repo = NULL;
	int err, is = 0;

	if ((err = git_worktree_lookup(&wt, repo, name)) < 0) {
		err = kb_error_git(err, "cannot read worktree '%s'", name);
		goto done;
	}
	if (git_repository_open_from_worktree(&wt_repo, wt) == 0)
		is = head_is(wt_repo, refname);
	else if ((err = head_file_is(&is, repo, name, refname)) < 0)
		err = kb_error_prefix(err, "cannot tell whether '%s' is checked out in worktree '%s'",
				      refname, name);
	if (is)
		err = dup_path(where, git_worktree_path(wt));
done:
	git_repository_free(wt_repo);
	git_worktree_free(wt);
	return err;
}

int kb_ref_checked_out(char **where, git_repository *repo, const char *refname)
{
	git_repository *main_repo = NULL;
	git_strarray names = { NULL, 0 };
	const char *common = git_repository_commondir(repo);
	size_t i;
	int err;

	*where = NULL;
	if ((err = git_repository_open(&main_repo, common)) < 0) {
		err = kb_error_git(err, "cannot open '%s'", common);
		goto done;
	}
	if (head_is(main_repo, refname)) {
		err = dup_path(where, git_repository_workdir(main_repo) ?
			       git_repository_workdir(main_repo) : git_repository_path(main_repo));
		goto done;
	}
	if ((err = git_worktree_list(&names, main_repo)) < 0) {
		err = kb_error_git(err, "cannot list the worktrees of '%s'", common);
		goto done;
	}
	for (i = 0; i < names.count && !err && !*where; i++)
		err = worktree_head_is(where, main_repo, names.strings[i], refname);
done:
	git_strarray_dispose(&names);
	git_repository_free(main_repo);
	return err;
}

/*
 * How long a ref's lock file held by another writer is waited for: git
 * waits 100 ms (core.filesRefLockTimeout); runs in parallel on a loaded
 * machine may hold one longer. A lock still there after that is stale.
 */
#define KB_LOCK_WAIT_MS 1000

static int wait_for_lock(git_repository *repo, const char *refname)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct kb_buf lock = KB_BUF_INIT;
	int waited = 0, err;

	if ((err = kb_buf_printf(&lock, "%s%s.lock", git_repository_commondir(repo),
				 refname)) < 0)
		return err;
	while (access(lock.ptr, F_OK) == 0 && waited < KB_LOCK_WAIT_MS) {
		nanosleep(&tick, NULL);
		waited += 10;
	}
	if (access(lock.ptr, F_OK) == 0)
		err = kb_error_set(KB_EEXISTS, "cannot lock '%s': '%s' exists "
				   "(another git at work, or a stale lock to remove)",
				   refname, lock.ptr);
	kb_buf_release(&lock);
	return err;
}

int kb_ref_check_lock(git_repository *repo, const char *refname)
{
	return wait_for_lock(repo, refname);
}

#define NOT_BOTH "and one name cannot be both a ref and a folder of refs"

/* A ref named as one of the folders of `refname`. */
static int ref_above(git_repository *repo, const char *refname)
{
	struct kb_buf folder = KB_BUF_INIT;
	git_reference *ref = NULL;
	const char *slash;
	int err = 0;

	for (slash = strchr(refname, '/'); slash && !err; slash = strchr(slash + 1, '/')) {
		kb_buf_clear(&folder);
		if ((err = kb_buf_put(&folder, refname, (size_t)(slash - refname))) < 0)
			break;
		if (git_reference_lookup(&ref, repo, folder.ptr) == 0)
			err = kb_error_set(KB_EEXISTS, "cannot write '%s': the ref '%s' exists, "
					   NOT_BOTH " (rename or delete '%s')", refname,
					   folder.ptr, folder.ptr);
		git_reference_free(ref);
		ref = NULL;
	}
	kb_buf_release(&folder);
	return err;
}

/* A ref inside `refname`, taken as a folder. */
static int ref_below(git_repository *repo, const char *refname)
{
	git_reference_iterator *it = NULL;
	struct kb_buf glob = KB_BUF_INIT;
	const char *name;
	int err;

	if ((err = kb_buf_printf(&glob, "%s/*", refname)) < 0)
		return err;
	if (git_reference_iterator_glob_new(&it, repo, glob.ptr) == 0 &&
	    git_reference_next_name(&name, it) == 0)
		err = kb_error_set(KB_EEXISTS, "cannot write '%s': refs exist inside it ('%s'), "
				   NOT_BOTH " (rename or delete them)", refname, name);
	git_reference_iterator_free(it);
	kb_buf_release(&glob);
	return err;
}

int kb_ref_check_namespace(git_repository *repo, const char *refname)
{
	int err;

	if ((err = ref_above(repo, refname)) == 0)
		err = ref_below(repo, refname);
	return err;
}

/*
 * Move `refname` from `old` to `id`, a zero `old` meaning "it must not
 * exist". libgit2 compares the old value under the ref's lock file, so of
 * two writers at once exactly one wins; the other gets GIT_EMODIFIED, or
 * GIT_ELOCKED while the winner holds the lock. (git_reference_create()
 * with force 0 looks before it locks: both could win, the second
 * replacing the first.) Signals wait while the lock file exists.
 */
static int update_ref(git_repository *repo, const char *refname, const git_oid *id,
		      const git_oid *old)
{
	git_reference *ref = NULL;
	sigset_t saved;
	int err;

	kb_signals_hold(&saved);
	err = git_reference_create_matching(&ref, repo, refname, id, 1, old, "kbackport: backport");
	if (err == 0)
		kb_work_ref_written();
	kb_signals_release(&saved);
	git_reference_free(ref);
	return err;
}

/*
 * Another writer updated `refname` between our look and our update. When
 * it wrote the backport we would have (same parent, tree and message: a
 * kbackport run at the same time), that is the result, created by it;
 * when it only held the lock, the update is tried again; anything else is
 * theirs, and not overwritten.
 */
static int lost_race(git_oid *commit_id, bool *created, git_repository *repo,
		     const char *refname, git_commit *base, const git_oid *tree_id,
		     const char *message, const git_oid *old)
{
	git_oid found;
	int err;

	if ((err = wait_for_lock(repo, refname)) < 0)
		return err;
	if (existing_matches(&found, repo, refname, base, tree_id, message)) {
		git_oid_cpy(commit_id, &found);
		return 0;
	}
	if (git_oid_equal(&found, old) && (err = update_ref(repo, refname, commit_id, old)) == 0) {
		*created = true;
		return 0;
	}
	return kb_error_set(KB_EEXISTS, "'%s' was changed by another writer meanwhile: "
			    "not overwritten", refname);
}

static int commit_backport(git_oid *commit_id, bool *created, git_repository *repo,
			   const char *refname, git_commit *base, const git_oid *tree_id,
			   const char *message, const git_signature *author,
			   const git_signature *committer, const git_oid *seen)
{
	const git_commit *parents[1] = { base };
	git_tree *tree = NULL;
	char *where = NULL;
	git_oid old;
	int err;

	*created = false;
	if (existing_matches(&old, repo, refname, base, tree_id, message)) {
		git_oid_cpy(commit_id, &old);
		return 0;
	}
	if (seen && !git_oid_equal(&old, seen))
		return kb_error_set(KB_EEXISTS, "'%s' was changed by another writer meanwhile: "
				    "not overwritten", refname);
	if ((err = kb_ref_checked_out(&where, repo, refname)) < 0)
		goto done;
	if (where) {
		err = kb_error_set(KB_EEXISTS, "'%s' is checked out in '%s': switch branches there first",
				   refname, where);
		goto done;
	}
	if ((err = git_tree_lookup(&tree, repo, tree_id)) < 0) {
		err = kb_error_git(err, "cannot read the new tree");
		goto done;
	}
	if ((err = git_commit_create(commit_id, repo, NULL, author, committer, NULL,
				     message, tree, 1, parents)) < 0) {
		err = kb_error_git(err, "cannot write the backport commit");
		goto done;
	}
	err = update_ref(repo, refname, commit_id, &old);
	if (err == GIT_EMODIFIED || err == GIT_ELOCKED)
		err = lost_race(commit_id, created, repo, refname, base, tree_id, message, &old);
	else if (err < 0) {
		err = kb_error_git(err, "cannot update '%s'", refname);
		/* a clash made meanwhile: said in words rather than libgit2's */
		kb_ref_check_namespace(repo, refname);
	} else {
		*created = true;
	}
	if (err == 0 && *created)
		kb_committer_written(committer);
done:
	free(where);
	git_tree_free(tree);
	return err;
}

int kb_commit_backport(git_oid *commit_id, bool *created, git_repository *repo,
		       const char *refname, git_commit *base, const git_oid *tree_id,
		       const char *message, const git_signature *author,
		       const git_signature *committer)
{
	return commit_backport(commit_id, created, repo, refname, base, tree_id, message,
			       author, committer, NULL);
}

int kb_commit_backport_seen(git_oid *commit_id, bool *created, git_repository *repo,
			    const char *refname, git_commit *base, const git_oid *tree_id,
			    const char *message, const git_signature *author,
			    const git_signature *committer, const git_oid *seen)
{
	return commit_backport(commit_id, created, repo, refname, base, tree_id, message,
			       author, committer, seen);
}
