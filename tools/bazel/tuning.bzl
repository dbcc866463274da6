"""The tuned shape-bucket tables (schedules/tuned/), checked, as tuning.inc entries.

halide_kernel_library writes TUNING_ENTRIES into tuning.inc, the runtime's
built-in dispatch table. A table that names an unknown op, direction, dtype
or target, a bucket out of range or a config its file does not define fails
the build here, with the file and the entry. A file's `table` serves every
CPU; its optional `cpu_tables` ({cpu key: entries}) serve one vendor's CPUs
("amd"), one core generation's ("amd_family23") or one model's
("amd_family25_model1", "intel_model143"), the most specific table holding a
bucket deciding it (runtime/builtin_tuning.h).
"""

load("//schedules/tuned:index.bzl", "TUNED_TARGETS")
load("//tools/bazel:halide.bzl", "TARGETS")
load("//tools/bazel:variants.bzl", "DIRECTION_CC", "DTYPES", "OPS")

# Bucket counts of runtime/tuning_buckets.h (kHiddenBuckets, kRowBuckets);
# the runtime also static_asserts every tuning.inc entry against them.
_HIDDEN_BUCKETS = 4
_ROW_BUCKETS = 4

# The keys of runtime/cpu_features.h HostCpuTables(): a vendor, or a vendor
# and the CPUID numbers that tell its core generations apart (AMD: the
# family, optionally then the model, since family 25 holds Zen 3 and Zen 4).
_CPU_GENERATION = {"amd": ["_family", "_model"], "intel": ["_model"]}

def _check_cpu_key(cpu, where):
    vendor = cpu.partition("_")[0]
    rest = cpu[len(vendor):]
    ok = vendor in _CPU_GENERATION
    for prefix in _CPU_GENERATION.get(vendor, []):
        if not ok or rest == "":
            break
        number = rest[len(prefix):].partition("_")[0]
        ok = rest.startswith(prefix) and number.isdigit()
        rest = rest[len(prefix) + len(number):]
    if not ok or rest != "":
        fail("%s: cpu_tables key %r is not amd, amd_family<N>, amd_family<N>_model<M>, intel or intel_model<N>" % (where, cpu))

def _source(target):
    return "schedules/tuned/%s.bzl" % target

def _check_one_of(value, known, what, where):
    if value not in known:
        fail("%s: unknown %s %r (known: %s)" % (where, what, value, ", ".join(sorted(known))))

def _check_bucket(value, count, what, where):
    if type(value) != "int" or value < 0 or value >= count:
        fail("%s: %s bucket %r is not in 0..%d (runtime/tuning_buckets.h)" % (where, what, value, count - 1))

def _table_entries(target, tuned, table, cpu, listed_as, dtypes):
    """The checked entries of one table of tuned: its default (cpu "") or a cpu_tables one."""
    source = _source(target)
    out = []
    seen = {}
    for entry in table:
        where = "%s: %stable entry %r" % (source, cpu + " " if cpu else "", entry)
        if len(entry) != 6:
            fail(where + ": expected (op, direction, dtype, hidden bucket, row bucket, config index)")
        op, direction, dtype, hidden_bucket, row_bucket, config = entry
        _check_one_of(op, OPS, "op", where)
        _check_one_of(direction, DIRECTION_CC, "direction", where)
        _check_one_of(dtype, DTYPES, "dtype", where)
        _check_bucket(hidden_bucket, _HIDDEN_BUCKETS, "hidden", where)
        _check_bucket(row_bucket, _ROW_BUCKETS, "row", where)
        field = OPS[op].family + "_configs"
        configs = getattr(tuned, field)
        if type(config) != "int" or config < 0 or config >= len(configs):
            fail("%s: config index %r does not exist (%s has %d)" % (where, config, field, len(configs)))
        key = (op, direction, dtype, hidden_bucket, row_bucket)
        if key in seen:
            fail("%s: duplicates %r" % (where, seen[key]))
        seen[key] = entry
        if dtype not in dtypes:
            continue
        out.append(struct(
            cc_op = OPS[op].cc,
            cc_direction = DIRECTION_CC[direction],
            cc_dtype = DTYPES[dtype],
            target = listed_as or target,
            hidden_bucket = hidden_bucket,
            row_bucket = row_bucket,
            config = config,
            cpu = cpu,
            source = source,
        ))
    return out

def _entries(target, tuned, listed_as = None, dtypes = DTYPES):
    """tuned's checked entries, for target or, given listed_as, for that
    target tuned as this one (its dtypes only)."""
    source = _source(target)
    _check_one_of(target, TARGETS, "target", source)
    if tuned.target != target:
        fail("%s: says target %r but is listed as %r in schedules/tuned/index.bzl" % (source, tuned.target, target))
    out = _table_entries(target, tuned, tuned.table, "", listed_as, dtypes)
    cpu_tables = getattr(tuned, "cpu_tables", {})
    for cpu in sorted(cpu_tables):
        _check_cpu_key(cpu, source)
        out.extend(_table_entries(target, tuned, cpu_tables[cpu], cpu, listed_as, dtypes))
    return out

def _all_entries():
    out = []
    for target in sorted(TUNED_TARGETS):
        out.extend(_entries(target, TUNED_TARGETS[target]))

    # Targets tuned as another (halide.bzl's tuned_as) use its entries for their dtypes.
    for target, t in sorted(TARGETS.items()):
        if hasattr(t, "tuned_as") and t.tuned_as in TUNED_TARGETS:
            out.extend(_entries(
                t.tuned_as,
                TUNED_TARGETS[t.tuned_as],
                listed_as = target,
                dtypes = getattr(t, "dtypes", DTYPES),
            ))
    return out

TUNING_ENTRIES = _all_entries()
