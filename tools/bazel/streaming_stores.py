#!/usr/bin/env python3
"""Rewrites a Halide kernel's LLVM IR into its streaming-stores twin.

usage: streaming_stores.py IN.ll OUT.ll FUNCTION TWIN BUFFER...

Every vector store into one of BUFFERs (the kernel's large outputs, told
apart by the TBAA type Halide tags each access with) becomes a call to a
helper that stores non-temporally when the address is 16-byte aligned, and
plainly otherwise, so any layout stays correct. Every return gets an sfence
first: non-temporal stores are weakly ordered, and each parallel task must
have its stores visible before it reports done.
Every symbol FUNCTION* is renamed TWIN*, so both link into one library.

Halide 14 cannot emit non-temporal stores. Without them each output cache
line is read before it is written (write-allocate): a forward call moves
1.5x its logical bytes, and one core reaches ~2/3 of STREAM copy.
The helpers are marked alwaysinline; run `opt -passes=always-inline`
on the output before llc.
"""
import re
import sys

# store <8 x float> %v, <8 x float>* %p, align 4, !tbaa !86
STORE = re.compile(
    r"^(\s*)store (<(\d+) x (float|half|i16|i8|i32)>) (%[\w.$\"]+), "
    r"<\d+ x \w+>\* (%[\w.$\"]+), align \d+, !tbaa (!\d+)(.*)$")
# !87 = !{!"y", !14, i64 0}       (a TBAA type node, named after its buffer)
TYPE_NODE = re.compile(r'^(!\d+) = !\{!"([^"]+)", !\d+, i64 \d+\}$')
# !86 = !{!87, !87, i64 0}        (an access tag: base type, access type, offset)
ACCESS_TAG = re.compile(r"^(!\d+) = !\{(!\d+), !\d+, i64 \d+\}$")
ELEMENT_BYTES = {"float": 4, "i32": 4, "half": 2, "i16": 2, "i8": 1}


def buffer_of_type(name):
    """'y' for y's own type node and for its refinements ('y.width8.base0')."""
    return name.split(".")[0]


def output_tags(lines, buffers):
    """The TBAA access tags of stores into `buffers`."""
    types = set()
    for line in lines:
        m = TYPE_NODE.match(line)
        if m and buffer_of_type(m.group(2)) in buffers:
            types.add(m.group(1))
    tags = set()
    for line in lines:
        m = ACCESS_TAG.match(line)
        if m and m.group(2) in types:
            tags.add(m.group(1))
    return tags


def helper(vector_type, lanes, element):
    """LLVM IR of the store helper for one vector type. It stores 16-byte
    pieces (movntdq xmm), so a 16-byte aligned row streams too (malloc's
    large blocks are 16 bytes past a page), and stores i64 vectors either way:
    a store of a vector type the target lacks (half without AVX512-FP16)
    may be split into scalar stores, and so lose its non-temporal hint."""
    size = int(lanes) * ELEMENT_BYTES[element]
    name = "@halnorm_streaming_store_v%s%s" % (lanes, element)
    pieces = []
    for k in range(size // 16):
        pieces.append(f"""  %piece{k} = shufflevector <{size // 8} x i64> %bits, <{size // 8} x i64> undef, <2 x i32> <i32 {2 * k}, i32 {2 * k + 1}>
  %at{k} = getelementptr <2 x i64>, <2 x i64>* %base, i64 {k}
  store <2 x i64> %piece{k}, <2 x i64>* %at{k}, align 16, !nontemporal !{{i32 1}}""")
    body = "\n".join(pieces)
    return name, size, f"""
define internal void {name}({vector_type}* %p, {vector_type} %v) alwaysinline nounwind {{
  %address = ptrtoint {vector_type}* %p to i64
  %misalignment = and i64 %address, 15
  %aligned = icmp eq i64 %misalignment, 0
  %bits = bitcast {vector_type} %v to <{size // 8} x i64>
  br i1 %aligned, label %streaming, label %plain
streaming:
  %base = bitcast {vector_type}* %p to <2 x i64>*
{body}
  ret void
plain:
  %whole = bitcast {vector_type}* %p to <{size // 8} x i64>*
  store <{size // 8} x i64> %bits, <{size // 8} x i64>* %whole, align 1
  ret void
}}
"""


def rewrite(text, function, twin, buffers):
    lines = text.split("\n")
    tags = output_tags(lines, buffers)
    helpers = {}
    out = []
    rewritten = 0
    for line in lines:
        m = STORE.match(line)
        if m and m.group(7) in tags:
            indent, vector_type, lanes, element, value, pointer = m.groups()[:6]
            name, size, body = helper(vector_type, lanes, element)
            if size % 16 == 0:  # whole 16-byte pieces (movntdq)
                helpers[name] = body
                out.append(f"{indent}call void {name}({vector_type}* {pointer}, {vector_type} {value})")
                rewritten += 1
                continue
        if re.match(r"^\s*ret ", line):
            out.append("  call void @llvm.x86.sse.sfence()")
        out.append(line)
    if rewritten == 0:
        sys.exit(f"streaming_stores.py: no vector store into {buffers} in {function}")
    renamed = re.sub(r"@%s(?=[\w(\s,)*])" % re.escape(function), "@" + twin, "\n".join(out))
    return (renamed + "".join(helpers.values()) +
            "\ndeclare void @llvm.x86.sse.sfence() nounwind\n")


def main(argv):
    if len(argv) < 6:
        sys.exit(__doc__)
    source, target, function, twin = argv[1:5]
    with open(source) as f:
        text = f.read()
    with open(target, "w") as f:
        f.write(rewrite(text, function, twin, set(argv[5:])))


if __name__ == "__main__":
    main(sys.argv)
