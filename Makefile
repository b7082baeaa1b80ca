# ntprof: NVMe-over-Fabrics profiler. `make` builds everything, `make deps`
# installs the Debian packages, `make check` installs them and runs every
# test, `make check-quick` the tier without root or BPF, `make demo` runs the demo,
# `make bench` the benchmarks.
# Quiet by default; `make V=1` prints the full commands.

PREFIX ?= /usr/local
DESTDIR ?=
OUTPUT := .output

CC ?= cc
CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
PKGS := sqlite3
DEF := -D_GNU_SOURCE
# Each directory sees only what it sits on: lib/ (the database writer, the
# embedded SQL, sessions, the report, output) is the core; collector/ and
# shell/ each use it and never each other; the tests see everything.
INC_LIB := -Ilib -Ibpf -I$(OUTPUT)
INC_COLLECTOR := -Icollector -Ilib -Ibpf -I$(OUTPUT)
INC_SHELL := -Ishell -Ilib -I$(OUTPUT)
INC_TESTS := -Itests -Icollector -Ishell -Ilib -Ibpf -I$(OUTPUT)
# -MMD -MP: each object's header dependencies, written beside it (.d)
ALL_CFLAGS = $(CFLAGS) $(WARN) $(DEF) $(EXTRA_CFLAGS) -MMD -MP \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LIBS_SQL = $(shell pkg-config --libs sqlite3 2>/dev/null || echo -lsqlite3)
LDFLAGS ?=

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Debian 12 packages everything here needs; `make deps` installs the missing.
DEB_PKGS := build-essential pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev \
	libsqlite3-dev sqlite3 libreadline-dev libcmocka-dev systemtap-sdt-dev python3 bc \
	qemu-system-x86 busybox-static kmod zstd nvme-cli fio iproute2 \
	libibverbs-dev librdmacm-dev ibverbs-providers chromium clickhouse-server clickhouse-client \
	nodejs
# npm from Debian, unless a Node.js with its own npm is installed (NodeSource's
# nodejs package carries npm, and conflicts with Debian's)
DEB_CMDS := npm
# DuckDB for the fleet recipe's test, from the npm registry (make deps-npm)
NPM_DIR := .output/npm
DUCKDB_NPM := @duckdb/node-api@1.5.6-r.1

# ClickHouse's tables and views of a fleet (docs/fleet.md): installed, not
# embedded
CH_SQL_FILES := sql/clickhouse/schema.sql sql/clickhouse/views.sql
# The SQL as written in sql/. A list of components or stages there is the
# query over the vocabulary that makes it ("--@" lines, sql/expand.c), so
# vocab.sql is the lists' one home; SQL_FILES are the files with those lines
# filled in (OUTPUT/sql), which ntprof embeds and installs.
SQL_SRC := sql/schema.sql sql/vocab.sql sql/host.sql sql/host_views.sql sql/target.sql \
	sql/target_views.sql sql/views.sql sql/prelude.sql sql/join.sql sql/report.sql \
	sql/stats.sql sql/native.sql sql/shell.sql sql/compare.sql sql/plot.sql sql/export.sql \
	sql/cache.sql sql/merged.sql sql/merged_index.sql \
	sql/live.sql sql/live_gaps.sql
SQL_FILES := $(patsubst sql/%,$(OUTPUT)/sql/%,$(SQL_SRC))
# What the queries read: the vocabulary, then their helper views.
SQL_DEFS := sql/vocab.sql sql/lists.sql

# lib/: the embedded SQL and the schema every program needs, the writer,
# and the sessions the report and the shell open
LIB_SQL_OBJS := $(OUTPUT)/sql_embed.o $(OUTPUT)/ntp_schema.o
DB_OBJS := $(OUTPUT)/ntp_db.o $(OUTPUT)/live.o $(OUTPUT)/native.o $(OUTPUT)/pair.o \
	$(OUTPUT)/span.o $(OUTPUT)/btree.o \
	$(LIB_SQL_OBJS)
SESSION_OBJS := $(OUTPUT)/open.o $(OUTPUT)/check.o $(OUTPUT)/copy.o $(OUTPUT)/meta.o \
	$(OUTPUT)/setup.o $(OUTPUT)/prepare.o $(OUTPUT)/remove_on_signal.o \
	$(OUTPUT)/report.o $(OUTPUT)/series.o \
	$(OUTPUT)/out.o $(OUTPUT)/progress.o $(OUTPUT)/compare.o $(OUTPUT)/json_writer.o \
	$(OUTPUT)/plot.o $(OUTPUT)/svg.o $(OUTPUT)/merge.o $(OUTPUT)/export.o \
	$(OUTPUT)/clickhouse.o $(OUTPUT)/cache.o $(OUTPUT)/sha256.o
# lib/ as one static archive: each program links only the objects it calls
# (the collector's summary takes the report, not the plots, merge or compare).
LIB_A := $(OUTPUT)/libntprof.a
GEN_OBJS := $(OUTPUT)/gen.o
# The unit tests, one list: make check runs them, check-asan again with the
# sanitizers.
TEST_NAMES := test_abi test_usdt test_proc test_hooks test_spdk_bpf test_native test_views test_out \
	test_join test_fixture test_kern test_stats test_svg test_sha256 test_live test_cache test_span \
	test_btree
TESTS := $(addprefix $(OUTPUT)/,$(TEST_NAMES))
# The tier a change is checked with first (make check-quick): no root, no
# BPF toolchain, a couple of minutes. The unit tests that neither load BPF
# nor take minutes, and the shell's test.
QUICK_NAMES := test_abi test_usdt test_proc test_native test_views test_out test_svg test_live \
	test_cache test_span test_btree
BINS := ntprof ntprof-shell ntprof-collect tests/ntprof-gen $(OUTPUT)/ntprof_sqlite.so \
	$(OUTPUT)/fixture_tgt $(OUTPUT)/fixture_perf $(OUTPUT)/check_sampled $(OUTPUT)/usdt_flood \
	$(OUTPUT)/cpu_hog $(OUTPUT)/check_fidelity $(OUTPUT)/spdk_trace_log \
	$(OUTPUT)/btf_merge $(OUTPUT)/slow_audit.so $(OUTPUT)/patch_cost \
	$(OUTPUT)/stamp_cost $(OUTPUT)/store_cost

.DELETE_ON_ERROR:
.PHONY: all deps deps-npm check check-quick check-quick-user check-unit-rest check-cli-rest check-unit check-asan check-cli check-plot check-merge check-fleet check-cache check-collect check-fault check-vm check-kernels demo bench install uninstall clean

all: $(BINS) $(TESTS)

# No intermediate is deleted (the BPF objects of the skeletons, the test
# objects): once the compiler's .d files name one, the next make would build
# it again, and in check that next make runs as nobody in a tree root built.
.SECONDARY:

$(LIB_A): $(SESSION_OBJS) $(DB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(OUTPUT):
	$(Q)mkdir -p $@

$(OUTPUT)/sql-expand: sql/expand.c | $(OUTPUT)
	$(call msg,CCLD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $< $(LDFLAGS) $(LIBS_SQL)

$(OUTPUT)/sql/%.sql: sql/%.sql $(OUTPUT)/sql-expand $(SQL_DEFS)
	$(call msg,EXPAND,$@)
	$(Q)mkdir -p $(@D) && $(OUTPUT)/sql-expand $< $@ $(SQL_DEFS)

$(OUTPUT)/sql_embed.c: sql/embed.sh $(SQL_FILES) | $(OUTPUT)
	$(call msg,EMBED,$@)
	$(Q)sh sql/embed.sh $@ $(SQL_FILES)

# Their declarations (lib/ntp_sql.h), from the same list: its one home.
$(OUTPUT)/ntp_sql_decl.h: sql/embed.sh Makefile | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)sh sql/embed.sh -h $@ $(SQL_FILES)

# sql/schema.sql's PRAGMAs, the one home of the schema version and the
# application id, as C constants (lib/ntp_schema.h).
$(OUTPUT)/ntp_schema_ids.h: sql/schema.sql | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)sed -n -e 's/^PRAGMA application_id = \([0-9]*\);.*/#define NTP_APPLICATION_ID \1/p' \
		-e 's/^PRAGMA user_version = \([0-9]*\);.*/#define NTP_SCHEMA_VERSION \1/p' $< > $@.tmp && \
	[ "$$(wc -l < $@.tmp)" = 2 ] && mv $@.tmp $@ || \
		{ rm -f $@.tmp; echo "$<: no PRAGMA application_id or user_version" >&2; exit 1; }

# sql/live.sql's column of each stage, for the live lines kept in memory
# (lib/live.c): read from the query, its one home.
$(OUTPUT)/ntp_live_cols.h: sql/live_columns.sh $(OUTPUT)/sql/live.sql | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)sh sql/live_columns.sh $@ $(OUTPUT)/sql/live.sql

$(OUTPUT)/live.o: $(OUTPUT)/ntp_live_cols.h

# The sums each recording's ntp_cmd_span computes, read from the views'
# text for lib/span.c: their one home.
$(OUTPUT)/ntp_span_cols.h: sql/span_columns.sh sql/host_views.sql sql/target_views.sql | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)sh sql/span_columns.sh $@ sql/host_views.sql sql/target_views.sql

$(OUTPUT)/%.o: lib/%.c | $(OUTPUT) $(OUTPUT)/ntp_schema_ids.h $(OUTPUT)/ntp_sql_decl.h \
		$(OUTPUT)/ntp_span_cols.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_LIB) -fPIC -c $< -o $@

$(OUTPUT)/%.o: collector/%.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_COLLECTOR) -c $< -o $@

$(OUTPUT)/%.o: shell/%.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_SHELL) -c $< -o $@

$(OUTPUT)/%.o: tests/%.c | $(OUTPUT) $(OUTPUT)/ntp_schema_ids.h $(OUTPUT)/ntp_sql_decl.h \
		$(OUTPUT)/ntp_span_cols.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_TESTS) -c $< -o $@

$(OUTPUT)/sql_embed.o: $(OUTPUT)/sql_embed.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_LIB) -c $< -o $@

# The header dependencies the compiler wrote (-MMD); none yet on a clean tree,
# where everything is built anyway. A BPF object's only while its source is
# there: the rules of a removed one would ask for it.
-include $(filter-out %.bpf.d,$(wildcard $(OUTPUT)/*.d)) \
	$(wildcard $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.d,$(wildcard bpf/*.bpf.c)))

# (also built into $(OUTPUT), with the sanitizers, by check-asan)
SHELL_OBJS := $(OUTPUT)/shell.o $(OUTPUT)/input.o $(OUTPUT)/commands.o $(OUTPUT)/output.o \
	$(OUTPUT)/terminal.o $(OUTPUT)/runs.o
ntprof-shell $(OUTPUT)/ntprof-shell: $(SHELL_OBJS) $(LIB_A)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) $^ -o $@ $(LIBS_SQL) -lreadline -lm

ntprof $(OUTPUT)/ntprof: $(OUTPUT)/ntprof.o $(OUTPUT)/runs.o $(LIB_A)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) $^ -o $@ $(LIBS_SQL) -lm

tests/ntprof-gen: $(OUTPUT)/ntprof-gen.o $(GEN_OBJS) $(DB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) $^ -o $@ $(LIBS_SQL) -lm

# The native aggregates as a loadable SQLite extension: `.load` in sqlite3.
$(OUTPUT)/ntprof_sqlite.so: lib/native.c lib/pair.c lib/span.c lib/btree.c lib/native.h \
		lib/span.h lib/btree.h $(OUTPUT)/ntp_span_cols.h | $(OUTPUT)
	$(call msg,LIB,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_LIB) -DNTP_EXTENSION -fPIC -shared lib/native.c lib/pair.c \
		lib/span.c lib/btree.c \
		-o $@ -lm

# USDT fixtures for test_usdt: the probes of the SPDK patch, in a program and
# in a shared library.
$(OUTPUT)/usdt_target: tests/usdt_target.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 $< -o $@

$(OUTPUT)/libusdt_target.so: tests/usdt_target.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -DUSDT_LIBRARY -fPIC -shared $< -o $@

$(OUTPUT)/test_usdt.o: ALL_CFLAGS += -DOUTPUT='"$(OUTPUT)"'
$(OUTPUT)/test_usdt: $(OUTPUT)/test_usdt.o $(OUTPUT)/usdt.o $(OUTPUT)/usdt_target \
		$(OUTPUT)/libusdt_target.so
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(OUTPUT)/test_usdt.o $(OUTPUT)/usdt.o -o $@ \
		-lcmocka -lelf

# A process with the sampling variable, for test_proc.
$(OUTPUT)/proc_target: tests/proc_target.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 $< -o $@

$(OUTPUT)/test_proc.o: ALL_CFLAGS += -DOUTPUT='"$(OUTPUT)"'
# ... and with the variable in a shared library, as a shared-library SPDK.
$(OUTPUT)/libproc_target.so: tests/proc_target.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -DPROC_LIBRARY -fPIC -shared $< -o $@

$(OUTPUT)/proc_target_lib: tests/proc_target.c $(OUTPUT)/libproc_target.so
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -DPROC_PROGRAM_ONLY $< -o $@ -L$(OUTPUT) -lproc_target \
		-Wl,-rpath,'$$ORIGIN'

# Holds up the loading of libproc_target.so (collect_test: --wait while a
# process still loads the library with the variable).
$(OUTPUT)/slow_audit.so: tests/slow_audit.c | $(OUTPUT)
	$(call msg,LIB,$@)
	$(Q)$(CC) -O2 -fPIC -shared $< -o $@

$(OUTPUT)/test_proc: $(OUTPUT)/test_proc.o $(OUTPUT)/proc.o $(OUTPUT)/lock.o \
		$(OUTPUT)/proc_target $(OUTPUT)/proc_target_lib
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(OUTPUT)/test_proc.o $(OUTPUT)/proc.o \
		$(OUTPUT)/lock.o -o $@ -lcmocka -lelf

# BPF: vmlinux.h from the running kernel's BTF, then %.bpf.c -> .bpf.o ->
# skeleton, as libbpf-tools do.
CLANG ?= clang
BPFTOOL ?= bpftool
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
# The host's system include dirs (asm/ lives under the multiarch one), as
# libbpf-tools finds them: -target bpf does not search them by itself.
CLANG_BPF_SYS_INCLUDES ?= $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

# The BPF target architecture of this machine, as libbpf-tools names it.
BPF_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/' \
	-e 's/ppc64le/powerpc/' -e 's/mips.*/mips/' -e 's/riscv64/riscv/' -e 's/s390x/s390/')

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -I$(OUTPUT) -Ibpf \
		$(CLANG_BPF_SYS_INCLUDES) -MMD -MP -MF $(@:.o=.d) -c $< -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# The kernel backend's objects, one per role and transport (collector/kern.c).
KERN_SKELS := $(addprefix $(OUTPUT)/ntprof_,$(addsuffix .skel.h,tcp_host tcp_target rdma_host rdma_target))
$(OUTPUT)/test_kern.o: $(KERN_SKELS)
# The hooks and their chooser attach through links.c, which writes the
# hook table: the tests link what they sit on.
HOOK_OBJS := $(OUTPUT)/hooks.o $(OUTPUT)/links.o $(DB_OBJS)
$(OUTPUT)/test_kern: $(OUTPUT)/test_kern.o $(OUTPUT)/kern_hooks.o $(HOOK_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $^ -o $@ -lcmocka -lbpf -lelf -lz $(LIBS_SQL) -lm

# The USDT programs against a fixture that fires a batch like the patch.
$(OUTPUT)/usdt_batch: tests/usdt_batch.c bpf/ntprof_abi.h | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Ibpf $< -o $@

$(OUTPUT)/test_spdk_bpf.o: $(OUTPUT)/ntprof_spdk.skel.h
$(OUTPUT)/test_spdk_bpf.o: ALL_CFLAGS += -DOUTPUT='"$(OUTPUT)"'
$(OUTPUT)/test_spdk_bpf: $(OUTPUT)/test_spdk_bpf.o $(OUTPUT)/usdt_batch
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(OUTPUT)/test_spdk_bpf.o -o $@ \
		-lcmocka -lbpf -lelf -lz

# The collector: libbpf, the database writer, and the report for its summary.
# The commands, the backends' table, one file per backend, and what they
# sit on.
COLLECT_OBJS := $(addprefix $(OUTPUT)/,collect.o opts.o probe.o record.o writer.o priv.o \
	backend.o spdk_backend.o kern.o kern_hooks.o links.o hooks.o spdk.o proc.o lock.o usdt.o \
	tstamp.o fsid.o)
$(OUTPUT)/spdk_backend.o: $(OUTPUT)/ntprof_spdk.skel.h
$(OUTPUT)/kern.o: $(KERN_SKELS)
ntprof-collect: $(COLLECT_OBJS) $(LIB_A)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) $^ -o $@ $(LIBS_SQL) -lbpf -lelf -lz -lm

# The SPDK-shaped NVMe/TCP fixture pair the collector tests record, and the
# program that recomputes the sampling rule over a recording.
include tests/fixture/fixture.mk

# A load for the collector's ingest benchmark (make bench).
$(OUTPUT)/usdt_flood: tests/usdt_flood.c tests/flood.h bpf/ntprof_abi.h | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -Ibpf $< -o $@

# The SPDK patch's include/spdk_internal/ntprof.h, out of the patch (its one
# home), for tests/patch_cost.c, which times the patch's per-command code
# against the stub SPDK headers of tests/patch_stub (make bench).
$(OUTPUT)/patch/spdk_internal/ntprof.h: spdk-patch/ntprof.patch | $(OUTPUT)
	$(call msg,EXTRACT,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)awk '/^diff --git a\/include\/spdk_internal\/ntprof.h/ { f = 1; next } \
		f && /^diff --git/ { exit } f && /^\+/ && !/^\+\+\+/ { print substr($$0, 2) }' $< > $@

$(OUTPUT)/patch_cost: tests/patch_cost.c $(OUTPUT)/patch/spdk_internal/ntprof.h \
		$(wildcard tests/patch_stub/*/*.h) bpf/ntprof_abi.h
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -I$(OUTPUT)/patch -Itests/patch_stub -Ibpf $< -o $@

# The kernel's receive timestamps' cost per packet (make bench).
$(OUTPUT)/stamp_cost: tests/stamp_cost.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< -o $@

# The writer's cost per record stored, through lib/ntp_db.c and by a bare
# SQLite loop (make bench).
$(OUTPUT)/store_cost: $(OUTPUT)/store_cost.o $(DB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $(LDFLAGS) $^ -o $@ $(LIBS_SQL) -lm

# A periodic SCHED_FIFO hog of one CPU (stall_test.sh: compare under stalls).
$(OUTPUT)/cpu_hog: tests/cpu_hog.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $< -o $@

$(OUTPUT)/check_sampled: tests/check_sampled.c bpf/ntprof_abi.h | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_TESTS) $< -o $@ $(LIBS_SQL)

# The sampled commands against the workload's own latencies
# (fidelity_test.sh): ntprof's percentiles and intervals (native.o), the
# fixture's latency log (nvmf_fixture.h).
$(OUTPUT)/check_fidelity: tests/check_fidelity.c $(OUTPUT)/native.o $(OUTPUT)/pair.o \
		$(OUTPUT)/span.o $(OUTPUT)/btree.o lib/native.h tests/fixture/nvmf_fixture.h bpf/ntprof_abi.h | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_TESTS) -Itests/fixture $< $(OUTPUT)/native.o \
		$(OUTPUT)/pair.o $(OUTPUT)/span.o $(OUTPUT)/btree.o -o $@ \
		$(LIBS_SQL) -lm

# SPDK's own trace of a host's commands as such a latency log, with
# ntprof's sampling rule (tests/spdk/verify.sh's peer case).
$(OUTPUT)/spdk_trace_log: tests/spdk/trace_log.c tests/fixture/nvmf_fixture.h bpf/ntprof_abi.h \
		| $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_TESTS) -Itests/fixture $< -o $@

# For the VM tests: vmlinux and one module's BTF in one file (--btf).
$(OUTPUT)/btf_merge: tests/btf_merge.c | $(OUTPUT)
	$(call msg,CC,$@)
	$(Q)$(CC) $(ALL_CFLAGS) $(INC_TESTS) $< -o $@ -lbpf -lelf -lz

$(OUTPUT)/test_hooks: $(OUTPUT)/test_hooks.o $(HOOK_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $^ -o $@ -lcmocka -lbpf -lelf -lz $(LIBS_SQL) -lm

$(OUTPUT)/test_abi: $(OUTPUT)/test_abi.o $(LIB_SQL_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $^ -o $@ -lcmocka $(LIBS_SQL)

# SHA-256 and HMAC against the standards' vectors: nothing else needed.
$(OUTPUT)/test_sha256: $(OUTPUT)/test_sha256.o $(OUTPUT)/sha256.o
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $^ -o $@ -lcmocka

$(OUTPUT)/test_%: $(OUTPUT)/test_%.o $(OUTPUT)/testlib.o $(GEN_OBJS) $(DB_OBJS) $(SESSION_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) $(EXTRA_CFLAGS) $^ -o $@ $(LIBS_SQL) -lcmocka -lm

# The Debian packages of DEB_PKGS not installed, as a shell command.
MISSING_DEBS = for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' \
		|| echo $$p; done; for c in $(DEB_CMDS); do command -v $$c > /dev/null || echo $$c; done
# Whether DuckDB's package of the pinned version is in $(NPM_DIR).
NPM_OK = { [ -f $(NPM_DIR)/node_modules/@duckdb/node-api/package.json ] && \
		grep -q '"version": "$(lastword $(subst @, ,$(DUCKDB_NPM)))"' \
			$(NPM_DIR)/node_modules/@duckdb/node-api/package.json; }

# Installs what `make` builds only if it is missing: no-op when all is there.
deps:
	@missing=$$($(MISSING_DEBS)); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root (sudo make ...)" >&2; exit 1; fi; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
	@$(MAKE) --no-print-directory deps-npm

# DuckDB's Node.js package, pinned, into $(NPM_DIR) (npm needs no
# privilege, and the tree is the build's); no-op when it is there.
deps-npm:
	@$(NPM_OK) || \
		{ mkdir -p $(NPM_DIR) && npm install --prefix $(NPM_DIR) --no-save --no-audit --no-fund \
			--no-package-lock $(DUCKDB_NPM); }

# check installs what it needs first (make deps: a no-op when all is
# there, apt-get and npm otherwise), so that the README's one test command
# runs on a clean machine.
# Each tier says how long it took, so a slow one shows in CI's log. The
# builds use every CPU (NPROC); the tests run one at a time, as their
# timings assume.
NPROC := $(shell nproc 2>/dev/null || echo 1)
CHECK_TIERS := all check-quick-user check-cli-rest check-plot check-merge \
	check-fleet check-cache check-collect check-fault check-vm check-asan
check: deps
	@set -e; t0=$$(date +%s); for t in $(CHECK_TIERS); do \
		s=$$(date +%s); \
		if [ $$t = all ]; then $(MAKE) -j$(NPROC) all; else $(MAKE) $$t; fi; \
		echo "== $$t took $$(($$(date +%s) - s)) s"; \
	done; echo "== make check took $$(($$(date +%s) - t0)) s"

check-quick: ntprof ntprof-shell tests/ntprof-gen $(addprefix $(OUTPUT)/,$(QUICK_NAMES)) \
		$(OUTPUT)/sql-expand
	@set -e; for t in $(QUICK_NAMES); do echo "== $$t"; $(OUTPUT)/$$t; done
	@sh tests/expand_test.sh
	@sh tests/shell_test.sh

# check-quick as an ordinary user when check runs as root: it needs no root.
check-quick-user:
	@if [ "$$(id -u)" = 0 ]; then \
		echo "== check-quick as nobody (everything it needs is built)"; \
		setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
			env HOME=/nonexistent TMPDIR=/tmp $(MAKE) --no-print-directory check-quick; \
	else $(MAKE) --no-print-directory check-quick; fi

check-unit: $(TESTS)
	@set -e; for t in $(TESTS); do echo "== $$t"; $$t; done
	@echo "== tests/spdk/build_test.sh"; sh tests/spdk/build_test.sh
	@echo "== tests/spdk/trace_test.sh"; sh tests/spdk/trace_test.sh

check-cli: all
	@sh tests/shell_test.sh
	@$(MAKE) --no-print-directory check-cli-rest

# The unit tests check-quick does not run. make check runs every unit test
# under AddressSanitizer and UBSan instead (check-asan), once.
check-unit-rest: $(TESTS)
	@set -e; for t in $(filter-out $(QUICK_NAMES),$(TEST_NAMES)); do \
		echo "== $(OUTPUT)/$$t"; $(OUTPUT)/$$t; done

check-cli-rest: all
	@sh tests/cli.sh
	@sh tests/spdk/build_test.sh
	@sh tests/spdk/trace_test.sh
	@sh tests/reader_test.sh
	@sh tests/compare_test.sh
	@python3 tests/tutorial_test.py .

# The cache of prepared runs: the same answers with and without it, and a
# changed recording, a damaged or forged cache file never believed
# (tests/cache_test.sh).
check-cache: all
	@sh tests/cache_test.sh

# ntprof plot's files rendered and measured in headless Chromium.
check-plot: all
	@sh tests/plot_test.sh

# A cluster of 16 hosts and two targets, more than SQLite attaches: ntprof
# merge, and report, compare and the shell over it (tests/merge_test.sh).
check-merge: all
	@sh tests/merge_test.sh

# ntprof export, and the fleet recipes of docs/fleet.md: two ClickHouse
# servers as a two-shard cluster and DuckDB, against ntprof's numbers
# (tests/fleet_test.sh; clickhouse-server and DuckDB from make deps).
check-fleet: all
	@NODE_MODULES=$(CURDIR)/$(NPM_DIR)/node_modules sh tests/fleet_test.sh

# The collector recording the fixture pair: root, this machine's kernel;
# then compare on recordings of a host whose CPU a SCHED_FIFO hog stalls;
# then the sampled commands against the workload's own latencies.
check-collect: all
	@sh tests/collect_test.sh
	@sh tests/stall_test.sh
	@sh tests/fidelity_test.sh

# Faults while recording (docs/reliability.md): a disk that fills up. Root.
check-fault: all
	@sh tests/fault_test.sh

# Linux guests under qemu for the kernel drivers, on Debian 12's two
# kernels (6.1 and 6.12): NVMe/TCP on one guest's loopback (with --btf and
# kprobes), then a host and a target guest over NVMe/TCP and NVMe/RDMA
# (soft-RoCE), and the pairs with the SPDK-shaped fixture (tests/fixture):
# its host against the kernel target, the kernel host against its target,
# and its host against its target, over both. make check runs every case on
# 6.1's TCP, a subset over RDMA, the fixture pair over RDMA and a subset on
# 6.12 (each side's paths run in the pairs of its own kind); check-kernels
# runs them all, the mixed pairs too. First, with a stand-in for qemu:
# which guest crashes the harness boots again (tests/vm/boot_retry_test.sh).
K612 := VM_KERNEL=linux-image-6.12-amd64
check-vm: all
	@sh tests/vm/boot_retry_test.sh
	@sh tests/vm/smoke_test.sh
	@$(K612) sh tests/vm/smoke_test.sh
	@sh tests/vm/kernel_test.sh
	@TR=rdma CASES="read1 write1 read10 flush1" sh tests/vm/kernel_test.sh
	@TR=rdma HOST=fixture TARGET=fixture sh tests/vm/kernel_test.sh
	@$(K612) CASES="read1 write1 flush1" sh tests/vm/kernel_test.sh
	@$(K612) TR=rdma CASES="read1 write1 flush1" sh tests/vm/kernel_test.sh

check-kernels: all
	@set -e; for k in linux-image-amd64 linux-image-6.12-amd64; do \
		VM_KERNEL=$$k sh tests/vm/smoke_test.sh; \
		for tr in tcp rdma; do \
			VM_KERNEL=$$k TR=$$tr sh tests/vm/kernel_test.sh; \
			VM_KERNEL=$$k TR=$$tr HOST=fixture sh tests/vm/kernel_test.sh; \
			VM_KERNEL=$$k TR=$$tr TARGET=fixture sh tests/vm/kernel_test.sh; \
			VM_KERNEL=$$k TR=$$tr HOST=fixture TARGET=fixture sh tests/vm/kernel_test.sh; \
		done; \
	done

# The unit tests, built with AddressSanitizer and UBSan (make check's only
# run of those check-quick does not run), one a CPU at a time, each one's
# output printed whole in order; then the readers on mutants.
check-asan:
	$(MAKE) -j$(NPROC) OUTPUT=.output-asan EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		$(addprefix .output-asan/,$(TEST_NAMES)) .output-asan/ntprof .output-asan/ntprof-shell
	@rm -f .output-asan/*.rc; printf '%s\n' $(TEST_NAMES) | xargs -P $(NPROC) -I@ \
		sh -c '.output-asan/@ >.output-asan/@.log 2>&1; echo $$? >.output-asan/@.rc'
	@rc=0; for t in $(TEST_NAMES); do echo "== asan $$t"; cat .output-asan/$$t.log; \
		[ "$$(cat .output-asan/$$t.rc)" = 0 ] || { echo "== asan $$t FAILED" >&2; rc=1; }; \
	done; exit $$rc
	@sh tests/fuzz_test.sh .output-asan/ntprof .output-asan/ntprof-shell 300

demo: deps
	$(MAKE) all
	@sh tests/demo.sh

bench: deps
	$(MAKE) all
	@sh tests/bench.sh

# Where `make install` puts things (DESTDIR included); `make uninstall`
# removes exactly these files, and the directories that are ntprof's alone
# once they are empty.
BINDIR := $(DESTDIR)$(PREFIX)/bin
SQLDIR := $(DESTDIR)$(PREFIX)/share/ntprof/sql
EXTDIR := $(DESTDIR)$(PREFIX)/lib/ntprof
MANDIR := $(DESTDIR)$(PREFIX)/share/man/man1
DOCDIR := $(DESTDIR)$(PREFIX)/share/doc/ntprof
COMPDIR := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INST_BINS := ntprof ntprof-shell ntprof-collect
INST_MANS := $(wildcard man/*.1)
INST_DOCS := $(wildcard docs/*.md)
# one completion file, found by bash-completion under each command's name
INST_COMPS := ntprof-shell ntprof-collect

# Only what it installs is built: not the tests.
install: $(INST_BINS) $(OUTPUT)/ntprof_sqlite.so
	install -d $(BINDIR) $(SQLDIR)/clickhouse $(EXTDIR) $(MANDIR) $(DOCDIR)/docs $(COMPDIR)
	install -m 755 $(INST_BINS) $(BINDIR)/
	install -m 644 $(SQL_FILES) $(SQLDIR)/
	install -m 644 $(CH_SQL_FILES) $(SQLDIR)/clickhouse/
	install -m 755 $(OUTPUT)/ntprof_sqlite.so $(EXTDIR)/
	install -m 644 $(INST_MANS) $(MANDIR)/
	install -m 644 README.md $(DOCDIR)/
	install -m 644 $(INST_DOCS) $(DOCDIR)/docs/
	install -m 644 completion/ntprof.bash $(COMPDIR)/ntprof
	for c in $(INST_COMPS); do ln -sf ntprof $(COMPDIR)/$$c; done

uninstall:
	rm -f $(addprefix $(BINDIR)/,$(INST_BINS)) $(addprefix $(SQLDIR)/,$(notdir $(SQL_FILES))) \
		$(addprefix $(SQLDIR)/clickhouse/,$(notdir $(CH_SQL_FILES))) \
		$(EXTDIR)/ntprof_sqlite.so $(addprefix $(MANDIR)/,$(notdir $(INST_MANS))) \
		$(DOCDIR)/README.md $(addprefix $(DOCDIR)/docs/,$(notdir $(INST_DOCS))) \
		$(addprefix $(COMPDIR)/,ntprof $(INST_COMPS))
	rmdir $(SQLDIR)/clickhouse $(SQLDIR) $(DESTDIR)$(PREFIX)/share/ntprof $(EXTDIR) \
		$(DOCDIR)/docs $(DOCDIR) \
		2>/dev/null || true

clean:
	rm -rf $(OUTPUT) .output-asan $(BINS)
