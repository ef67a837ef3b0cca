# kbackport: apply, build, test and report stable backports of kernel fixes.
#
#   make          build build/kbackport
#   make check    every test: unit, integration, ASan/UBSan, valgrind
#                 (installs missing Debian packages first)
#   make demo     kbackport run (apply, build, test, report) on the built-in
#                 default branches.yaml
#   make bench    after make demo: apply vs `git worktree add` + `git
#                 cherry-pick -x`, the whole run cold and unchanged (lane
#                 builds cold and incremental), boot-to-verdict per lane,
#                 into BENCHMARKS.md
#   make fuzz     each libFuzzer target for FUZZ_SECONDS (600)
#   make install  PREFIX (/usr/local) and DESTDIR as usual; make uninstall
#
# DEVELOPER=0 drops -Werror; SAN=1 builds with ASan/UBSan (into build/asan).

CC      ?= cc
BUILD   ?= build
SAN     ?= 0
DEVELOPER ?= 1

PKGS    := libgit2 yaml-0.1 jansson libarchive libcrypto liblzma
WARN    := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wformat=2 -Wno-format-nonliteral
ifeq ($(DEVELOPER),1)
WARN    += -Werror
endif
CFLAGS  ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE $(WARN) $(CFLAGS) \
           $(shell pkg-config --cflags $(PKGS) 2>/dev/null) -Itools/kbackport/lib \
           -DKB_DATADIR='"$(CURDIR)"'
LDLIBS  = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ifeq ($(SAN),1)
BUILD   := build/asan
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
endif

# The library by stage: pipeline files at its top, a folder per stage.
# Includes name their folder ("apply/patch.h"), from tools/kbackport/lib.
LIB_DIRS := tools/kbackport/lib $(addprefix tools/kbackport/lib/,util import apply audit kbuild boot report)
LIB_SRC := $(sort $(wildcard $(LIB_DIRS:%=%/*.c)))
CLI_SRC := $(sort $(wildcard tools/kbackport/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check unit integration check-asan check-valgrind e2e demo bench clean FORCE
all: $(BUILD)/kbackport

# Debian 12 packages needed to build and test; installed when missing.
DEB_PKGS := build-essential pkg-config git libgit2-dev libyaml-dev \
            libjansson-dev libcmocka-dev libarchive-dev jq valgrind \
            flex bison bc libelf-dev libssl-dev cpio kmod xz-utils ccache \
            qemu-system-x86 busybox-static python3 python3-yaml \
            python3-jsonschema chromium patch groff-base man-db nodejs npm \
            liblzma-dev rsync go-md2man
deps:
	@./ci/install-deps.sh $(DEB_PKGS)

# Header dependencies from the compiler (-MMD): an object is rebuilt when a
# header it includes changes, and only then.
DEPFLAGS = -MMD -MP

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/libkbackport.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/kbackport: $(CLI_OBJ) $(BUILD)/gen/version.o $(BUILD)/libkbackport.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# kbackport --version: the VERSION file's release, and the commit it was
# built from when git knows it ("0.4.0+g0bf2411", "-dirty" with changes). version.c is rewritten only when the version changes, so
# only it is recompiled and the binaries relinked then.
$(BUILD)/gen/version.c: FORCE
	@mkdir -p $(dir $@)
	@r=$$(head -1 VERSION 2>/dev/null || echo unknown); \
	g=$$(git -C $(CURDIR) describe --always --dirty --exclude '*' 2>/dev/null); \
	v=$$r$${g:++g$$g}; \
	printf 'const char kb_version[] = "%s";\n' "$$v" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(BUILD)/gen/version.o: $(BUILD)/gen/version.c
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libkbackport.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(BUILD)/libkbackport.a \
		$(LDLIBS) -lcmocka

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d) $(UNIT_BIN:=.d)

unit: $(UNIT_BIN)
	@./tests/run-unit.sh $(UNIT_BIN)

integration: $(BUILD)/kbackport
	@KBACKPORT=$(abspath $(BUILD)/kbackport) ./tests/run-suite.sh tests/integration

check-asan:
	@st=0; \
	KB_PASS=asan $(MAKE) -k --no-print-directory SAN=1 unit integration || st=1; \
	$(MAKE) --no-print-directory SAN=1 fuzz-replay || st=1; \
	exit $$st

# libFuzzer targets tests/fuzz/fuzz_<name>.c, built with clang into build/fuzz
# and run FUZZ_SECONDS each (one process) on a copy of its seeds
# (tests/fuzz/seeds.sh <name>: fixtures and tests/fuzz/corpus/<name>),
# with tests/fuzz/<name>.dict.
.PHONY: fuzz fuzz-deps fuzz-replay
FUZZ_NAMES   := patch locate yaml ktap fix
FUZZ_SECONDS ?= 600
FUZZ_CC      ?= clang
FUZZ_SAN     := address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=build/fuzz/%.o)
FUZZ_BIN     := $(FUZZ_NAMES:%=build/fuzz/fuzz_%)
REPLAY_BIN   := $(FUZZ_NAMES:%=$(BUILD)/fuzz/replay_%)

fuzz-deps:
	@./ci/install-deps.sh clang libclang-rt-14-dev

build/fuzz/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/fuzz -fsanitize=fuzzer-no-link,$(FUZZ_SAN) -c -o $@ $<

-include $(FUZZ_LIB_OBJ:.o=.d) $(FUZZ_NAMES:%=build/fuzz/tests/fuzz/fuzz_%.d)

build/fuzz/libkbackport.a: $(FUZZ_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

.SECONDARY: $(FUZZ_NAMES:%=build/fuzz/tests/fuzz/fuzz_%.o)
build/fuzz/fuzz_%: build/fuzz/tests/fuzz/fuzz_%.o build/fuzz/libkbackport.a
	$(FUZZ_CC) -fsanitize=fuzzer,$(FUZZ_SAN) -o $@ $^ $(LDLIBS)

# A crash or a hang leaves its input in build/fuzz/crash-<name>/ and fails.
fuzz: fuzz-deps
	@$(MAKE) --no-print-directory $(FUZZ_BIN)
	@st=0; for n in $(FUZZ_NAMES); do \
		mkdir -p build/fuzz/corpus-$$n build/fuzz/crash-$$n; \
		for f in $$(tests/fuzz/seeds.sh $$n); do cp "$$f" "build/fuzz/corpus-$$n/$$(echo "$$f" | tr / _)"; done; \
		echo "fuzz_$$n: $(FUZZ_SECONDS)s"; \
		build/fuzz/fuzz_$$n -max_total_time=$(FUZZ_SECONDS) -timeout=30 \
			-dict=tests/fuzz/$$n.dict \
			-print_final_stats=1 -artifact_prefix=build/fuzz/crash-$$n/ \
			build/fuzz/corpus-$$n $$(ls -d tests/fuzz/regressions/$$n 2>/dev/null) \
			|| { echo "error: fuzz_$$n failed, input in build/fuzz/crash-$$n/"; st=1; }; \
	done; exit $$st

# Every regression and seed through the targets without libFuzzer,
# built with $(CC) and ASan/UBSan (SAN=1, into build/asan/fuzz).
ifeq ($(SAN),1)
fuzz-replay: $(REPLAY_BIN)
	@for n in $(FUZZ_NAMES); do \
		set -- $$(tests/fuzz/seeds.sh $$n; find tests/fuzz/regressions/$$n -type f 2>/dev/null | sort); \
		$(BUILD)/fuzz/replay_$$n "$$@" || { echo "error: replay of fuzz_$$n failed"; exit 1; }; \
		echo "fuzz_$$n: replayed $$# inputs"; \
	done
else
fuzz-replay:
	@$(MAKE) --no-print-directory SAN=1 fuzz-replay
endif

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c $(BUILD)/libkbackport.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ $(filter %.c,$^) $(BUILD)/libkbackport.a $(LDLIBS)

-include $(REPLAY_BIN:=.d)

# make install [PREFIX=/usr/local] [DESTDIR=]: an installed kbackport,
# build/install/kbackport, finds its data in $(PREFIX)/share/kbackport (only
# cli.c, which holds KB_DATADIR, is compiled again for it, with the path from
# build/install/datadir.h); the data installed is the binary's own table of
# the files it reads (lib/datafiles.c, printed by build/list-data); make
# uninstall removes what install wrote. tools/install.sh says what goes where.
# PREFIX and DESTDIR reach the shell only through the environment, as they
# were given ($(value ...): a '$' in them is not expanded by make), never
# pasted into a command line: spaces, quotes, backslashes and '$' work.
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL_DIR := $(BUILD)/install

$(INSTALL_DIR)/datadir.h install uninstall: export KB_PREFIX = $(value PREFIX)
install uninstall: export KB_DESTDIR = $(value DESTDIR)

$(INSTALL_DIR)/datadir.h: FORCE
	@mkdir -p $(dir $@)
	@tools/install.sh c-header "$$KB_PREFIX" > $@.tmp || { rm -f $@.tmp; exit 1; }; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(INSTALL_DIR)/cli.o: tools/kbackport/cli.c $(INSTALL_DIR)/datadir.h
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -UKB_DATADIR -include $(INSTALL_DIR)/datadir.h -c -o $@ $<

-include $(INSTALL_DIR)/cli.d

$(INSTALL_DIR)/kbackport: $(INSTALL_DIR)/cli.o $(filter-out %/cli.o,$(CLI_OBJ)) $(BUILD)/gen/version.o $(BUILD)/libkbackport.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/list-data: tools/list-data.c $(BUILD)/libkbackport.a
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libkbackport.a $(LDLIBS)

-include $(BUILD)/list-data.d

$(INSTALL_DIR)/data-files: $(BUILD)/list-data
	@mkdir -p $(dir $@)
	$(BUILD)/list-data > $@.tmp && mv $@.tmp $@

# The man pages (tools/gen-man.sh, into build/man/): kbackport(1) with
# each command's --help text, kbackport-<command>(1) from its --help and
# docs/kbackport-<command>.md, and the file formats in section 5 from docs/.
$(BUILD)/man/.stamp: $(BUILD)/kbackport tools/gen-man.sh $(wildcard docs/*.md)
	@command -v go-md2man >/dev/null || ./ci/install-deps.sh go-md2man
	rm -rf $(BUILD)/man.tmp && tools/gen-man.sh $(BUILD)/kbackport $(BUILD)/man.tmp && \
		rm -rf $(BUILD)/man && mv $(BUILD)/man.tmp $(BUILD)/man && touch $@

.PHONY: man install uninstall
man: $(BUILD)/man/.stamp

install: $(INSTALL_DIR)/kbackport $(BUILD)/man/.stamp $(INSTALL_DIR)/data-files
	@tools/install.sh install "$$KB_DESTDIR" "$$KB_PREFIX" $(INSTALL_DIR)/kbackport \
		$(BUILD)/man $(INSTALL_DIR)/data-files

uninstall:
	@tools/install.sh uninstall "$$KB_DESTDIR" "$$KB_PREFIX"

# Real kernels: Debian's linux-source packages, imported into build/e2e.
e2e: $(BUILD)/kbackport
	@KB_PASS=e2e KBACKPORT=$(abspath $(BUILD)/kbackport) ./tests/run-suite.sh tests/e2e

check-valgrind: $(UNIT_BIN) $(BUILD)/kbackport
	@KBACKPORT=$(abspath $(BUILD)/kbackport) ./tests/valgrind.sh $(UNIT_BIN)

# Every part runs even when an earlier one failed; the summary decides.
# Two streams side by side: the kernels (unit, then e2e, whose builds use
# both cores and whose QEMU boots use one) and the single-threaded passes
# (integration, ASan/UBSan, then valgrind) as a queue of jobs, one per pass
# and suite (tests/jobs.sh), taken by one worker beside the kernels and by
# a second once the kernels are done, so both cores work to the end. The
# jobs' output is printed when all are done, in queue order. Everything
# both streams run is built first (a compiler per CPU), so no two makes
# build the same file.
# tests/summary.sh then says where the time went (slowest suites, each
# pass, each stream, ccache's share of the kernel builds).
# The kernel builds run one compiler more than the CPUs (KBACKPORT_JOBS):
# the worker beside them is one process, often waiting on its children.
# KB_CHECK_SERIAL=1 runs the streams one after the other, one worker.
check: deps
	@rm -f build/test-totals build/test-times build/check-streams
	@mkdir -p build
	@ccache --print-stats > build/ccache-before 2>/dev/null || rm -f build/ccache-before
	@$(MAKE) --no-print-directory -j$$(nproc) all $(UNIT_BIN)
	@$(MAKE) --no-print-directory -j$$(nproc) SAN=1 check-bins
	@./tests/jobs.sh init $(UNIT_BIN)
	@st=0; start=$$(date +%s); \
	if [ "$${KB_CHECK_SERIAL:-0}" = 1 ]; then \
		$(MAKE) --no-print-directory check-main || st=1; \
		echo "kernels $$(($$(date +%s) - start))" >> build/check-streams; \
		./tests/jobs.sh work main; \
	else \
		{ ./tests/jobs.sh work side; echo "side $$(($$(date +%s) - start))" >> build/check-streams; } & side=$$!; \
		KBACKPORT_JOBS=$${KBACKPORT_JOBS:-$$(($$(nproc) + 1))} \
			$(MAKE) --no-print-directory check-main || st=1; \
		echo "kernels $$(($$(date +%s) - start))" >> build/check-streams; \
		./tests/jobs.sh work main; \
		wait $$side; \
	fi; \
	echo "all $$(($$(date +%s) - start))" >> build/check-streams; \
	echo "# ---- the integration, ASan/UBSan and valgrind passes, run beside the above ----"; \
	./tests/jobs.sh print || st=1; \
	./tests/summary.sh && exit $$st

.PHONY: check-main check-side check-bins
check-main:
	@st=0; \
	$(MAKE) --no-print-directory unit || st=1; \
	$(MAKE) --no-print-directory e2e || st=1; \
	exit $$st

check-side:
	@st=0; \
	$(MAKE) --no-print-directory integration || st=1; \
	$(MAKE) --no-print-directory check-asan || st=1; \
	$(MAKE) --no-print-directory check-valgrind || st=1; \
	exit $$st

# What check-asan runs, built (SAN=1).
check-bins: $(BUILD)/kbackport $(UNIT_BIN) $(REPLAY_BIN)

demo: deps all
	@./tests/demo.sh $(BUILD)/kbackport

# The demo imports the kernels and builds the lanes the benches use.
bench: demo
	@./tests/bench/bench.sh $(BUILD)/kbackport

clean:
	rm -rf build work
