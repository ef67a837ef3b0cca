# kbackport: apply, build, test and report stable backports of kernel fixes.
#
#   make          build build/kbackport
#   make check    every test: unit, integration, ASan/UBSan, valgrind
#                 (installs missing Debian packages first)
#   make demo     kbackport run (apply, build, test, report) on the built-in
#                 default branches.yaml
#   make bench    apply stage vs `git worktree add` + `git cherry-pick -x`,
#                 build stage, boot-to-verdict per lane
#
# DEVELOPER=0 drops -Werror; SAN=1 builds with ASan/UBSan (into build/asan).

CC      ?= cc
BUILD   ?= build
SAN     ?= 0
DEVELOPER ?= 1

PKGS    := libgit2 yaml-0.1 jansson libarchive libcrypto
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

LIB_SRC := $(sort $(wildcard tools/kbackport/lib/*.c))
CLI_SRC := $(sort $(wildcard tools/kbackport/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ := $(CLI_SRC:%.c=$(BUILD)/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: all deps check unit integration check-asan check-valgrind e2e demo bench clean
all: $(BUILD)/kbackport

# Debian 12 packages needed to build and test; installed when missing.
DEB_PKGS := build-essential pkg-config git libgit2-dev libyaml-dev \
            libjansson-dev libcmocka-dev libarchive-dev jq valgrind \
            flex bison bc libelf-dev libssl-dev cpio kmod xz-utils ccache \
            qemu-system-x86 busybox-static python3 python3-yaml \
            python3-jsonschema chromium
deps:
	@./ci/install-deps.sh $(DEB_PKGS)

$(BUILD)/%.o: %.c $(wildcard tools/kbackport/lib/*.h tools/kbackport/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libkbackport.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/kbackport: $(CLI_OBJ) $(BUILD)/libkbackport.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libkbackport.a $(wildcard tests/unit/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(BUILD)/libkbackport.a \
		$(LDLIBS) -lcmocka

unit: $(UNIT_BIN)
	@./tests/run-unit.sh $(UNIT_BIN)

integration: $(BUILD)/kbackport
	@KBACKPORT=$(abspath $(BUILD)/kbackport) ./tests/integration/run.sh

check-asan:
	@$(MAKE) --no-print-directory SAN=1 unit integration

# Real kernels: Debian's linux-source packages, imported into build/e2e.
e2e: $(BUILD)/kbackport
	@KBACKPORT=$(abspath $(BUILD)/kbackport) ./tests/e2e/run.sh

check-valgrind: $(UNIT_BIN) $(BUILD)/kbackport
	@KBACKPORT=$(abspath $(BUILD)/kbackport) ./tests/valgrind.sh $(UNIT_BIN)

# Every part runs even when an earlier one failed; the summary decides.
check: deps
	@rm -f build/test-totals
	@$(MAKE) --no-print-directory all
	@st=0; \
	$(MAKE) --no-print-directory unit integration || st=1; \
	$(MAKE) --no-print-directory e2e || st=1; \
	$(MAKE) --no-print-directory check-asan || st=1; \
	$(MAKE) --no-print-directory check-valgrind || st=1; \
	./tests/summary.sh && exit $$st

demo: deps all
	@./tests/demo.sh $(BUILD)/kbackport

bench: deps all
	@./tests/bench/apply-vs-cherry-pick.sh $(BUILD)/kbackport
	@./tests/bench/build.sh $(BUILD)/kbackport
	@./tests/bench/boot.sh $(BUILD)/kbackport

clean:
	rm -rf build work
