#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cross-check softcx's PRM layouts (core_cpp/prm/*.h) against the kernel.

Reads the kernel's mlx5_ifc.h (bit-string structs: `u8 name[bits];`, nested
struct/union members, arrays) and, for the few byte-level layouts that live
only there, device.h (plain C structs). Then scans the softcx PRM headers for
`namespace scx::prm::NAME {` blocks declaring `field<off, bits> x{}` and
`block<off, bytes> x{}` constants, and writes a C++ header with

  * kifc::kernel_fields[]: (struct, field, bit offset, bit width) for every
    struct softcx declares, as the kernel defines it, and
  * kifc::declared[]: every softcx constant, referenced by name so that the
    compiler supplies its real offset and width.

tests/host/test_prm_ifc.cpp compares the two, so a typo or a kernel-side
change shows up as a failing test naming the field.

usage: ifc_offsets.py --ifc mlx5_ifc.h [--ifc-extra cmd.c] --device device.h
       [--device qp.h ...] --prm DIR -o OUT.h
"""
import argparse
import glob
import os
import re
import sys

# ---------------------------------------------------------------- tokenizer

TOKEN_RE = re.compile(r"\s*(?:(\w+)|(\S))")


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def tokenize(text):
    out = []
    for m in TOKEN_RE.finditer(text):
        out.append(m.group(1) or m.group(2))
    return out


def collect_constants(text):
    """#define NAME value, and enum members (implicit ones count on)."""
    consts = {}
    for m in re.finditer(r"^\s*#define\s+(\w+)\s+(.+?)\s*$", text, flags=re.M):
        consts[m.group(1)] = m.group(2)
    for m in re.finditer(r"\benum\s*\w*\s*\{(.*?)\}", text, flags=re.S):
        prev = None
        for item in m.group(1).split(","):
            item = item.strip()
            if not item:
                continue
            name, _, value = item.partition("=")
            name = name.strip()
            if not re.fullmatch(r"[A-Za-z_]\w*", name):
                break
            value = value.strip() if value else ("(%s) + 1" % prev if prev else "0")
            consts.setdefault(name, value)
            prev = name
    return consts


def evaluate(expr, consts, depth=0):
    if depth > 20:
        raise ValueError("constant too deep: " + expr)
    expr = expr.strip()
    if re.fullmatch(r"0[xX][0-9a-fA-F]+|\d+", expr):
        return int(expr, 0)
    names = re.findall(r"[A-Za-z_]\w*", expr)
    env = {}
    for n in names:
        if n not in consts:
            raise ValueError("unknown constant " + n)
        env[n] = evaluate(consts[n], consts, depth + 1)
    if not re.fullmatch(r"[\w\s()+\-*<>|&]+", expr):
        raise ValueError("unsupported expression " + expr)
    return int(eval(expr, {"__builtins__": {}}, env))  # noqa: S307 (kernel text)


# ------------------------------------------------------------------- parser


class Member:
    def __init__(self, name, kind, type_name=None, dims=(), bitfield=None, body=None):
        self.name = name          # None for anonymous struct/union
        self.kind = kind          # 'scalar' | 'struct' | 'union'
        self.type_name = type_name
        self.dims = list(dims)    # array dimensions (strings; '' = flexible)
        self.bitfield = bitfield
        self.body = body          # inline definition: (kind, members)


class Parser:
    """Recursive descent over struct/union bodies; everything else is skipped."""

    def __init__(self, tokens):
        self.t = tokens
        self.i = 0
        self.aggregates = {}  # "struct NAME" / "union NAME" -> (kind, members)

    def peek(self, k=0):
        return self.t[self.i + k] if self.i + k < len(self.t) else None

    def take(self):
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, tok):
        got = self.take()
        if got != tok:
            raise ValueError("expected %r, got %r near token %d" % (tok, got, self.i))

    def skip_attributes(self):
        while self.peek() in ("__packed", "__aligned", "__attribute__"):
            tok = self.take()
            if tok != "__packed" and self.peek() == "(":
                self.skip_parens()

    def skip_parens(self):
        depth = 0
        while True:
            tok = self.take()
            if tok == "(":
                depth += 1
            elif tok == ")":
                depth -= 1
                if depth == 0:
                    return

    def parse_file(self):
        while self.peek() is not None:
            tok = self.peek()
            if tok in ("struct", "union") and self.peek(2) == "{":
                kind = self.take()
                name = self.take()
                start = self.i
                try:
                    self.aggregates[kind + " " + name] = (kind, self.parse_body())
                except (ValueError, IndexError):
                    # Not a plain layout (pointers, function members ...): skip it.
                    self.i = start
                    self.skip_braces()
            else:
                self.take()

    def skip_braces(self):
        depth = 0
        while self.peek() is not None:
            tok = self.take()
            if tok == "{":
                depth += 1
            elif tok == "}":
                depth -= 1
                if depth == 0:
                    return

    def parse_body(self):
        self.expect("{")
        members = []
        while self.peek() != "}":
            members.append(self.parse_member())
        self.expect("}")
        self.skip_attributes()
        return members

    def parse_member(self):
        tok = self.take()
        if tok in ("struct", "union"):
            kind = tok
            type_name = None
            body = None
            if self.peek() != "{":
                type_name = kind + " " + self.take()
            if self.peek() == "{":
                body = (kind, self.parse_body())
            name = None
            if self.peek() != ";":
                name = self.take()
            dims = self.parse_dims()
            self.skip_attributes()
            self.expect(";")
            return Member(name, kind, type_name, dims, body=body)
        type_name = tok
        while self.peek() in ("int", "long", "char", "short"):
            type_name += " " + self.take()
        name = self.take()
        dims = self.parse_dims()
        bitfield = None
        if self.peek() == ":":
            self.take()
            bitfield = self.take()
        self.skip_attributes()
        self.expect(";")
        return Member(name, "scalar", type_name, dims, bitfield)

    def parse_dims(self):
        dims = []
        while self.peek() == "[":
            self.take()
            expr = []
            while self.peek() != "]":
                expr.append(self.take())
            self.take()
            dims.append(" ".join(expr))
        return dims


def read_with_includes(path, seen=None):
    """The file's text with its local #include "x.h" files prepended."""
    seen = seen if seen is not None else set()
    if path in seen:
        return ""
    seen.add(path)
    text = open(path).read()
    extra = ""
    for inc in re.findall(r'^\s*#include\s+"([^"]+)"', text, flags=re.M):
        sub = os.path.join(os.path.dirname(path), inc)
        if os.path.exists(sub):
            extra += read_with_includes(sub, seen) + "\n"
    return extra + text


def load(path):
    text = strip_comments(read_with_includes(path))
    consts = collect_constants(text)
    # Drop preprocessor lines before tokenizing.
    body = re.sub(r"^\s*#.*?(?<!\\)$", " ", text, flags=re.M | re.S)
    # struct_group(name, members...); lays the members out in place.
    body = re.sub(r"\bstruct_group\(\s*\w+\s*,(.*?)\)\s*;", r"\1", body, flags=re.S)
    p = Parser(tokenize(body))
    p.parse_file()
    return p.aggregates, consts


# ------------------------------------------------------------------- layout


class IfcLayout:
    """mlx5_ifc.h: every leaf is u8 NAME[...][bits]; offsets are in bits."""

    def __init__(self, aggregates, consts):
        self.agg = aggregates
        self.consts = consts
        self.sizes = {}

    def dim(self, d):
        return evaluate(d, self.consts) if d else 0

    def member_width(self, m):
        """(total width, element width) in bits; flexible arrays count 0."""
        if m.kind == "scalar":
            bits = self.dim(m.dims[-1])
            count = 1
            for d in m.dims[:-1]:
                count *= self.dim(d)
            return bits * count, bits
        elem = self.body_size(m.body) if m.body else self.size(m.type_name)
        count = 1
        for d in m.dims:
            count *= self.dim(d)
        return elem * count, elem

    def size(self, key):
        if key not in self.sizes:
            self.sizes[key] = self.body_size(self.agg[key])
        return self.sizes[key]

    def body_size(self, body):
        kind, members = body
        total = 0
        for m in members:
            w, _ = self.member_width(m)
            total = max(total, w) if kind == "union" else total + w
        return total

    def fields(self, body, base=0, prefix=""):
        """Yield (path, bit offset, width) for each member; inline bodies recurse."""
        kind, members = body
        off = base
        for m in members:
            w, elem = self.member_width(m)
            flexible = any(d == "" for d in m.dims)
            if m.name is not None:
                yield prefix + m.name, off, (elem if flexible else w)
            if m.body is not None:
                sub = prefix + (m.name + "." if m.name else "")
                yield from self.fields(m.body, off, sub)
            if kind != "union":
                off += w


class CLayout:
    """device.h: plain C structs of fixed-width types; offsets in bits."""

    SCALARS = {"u8": 1, "char": 1, "__u8": 1, "u16": 2, "__be16": 2, "__le16": 2,
               "__u16": 2, "u32": 4, "__be32": 4, "__le32": 4, "__u32": 4,
               "u64": 8, "__be64": 8, "__le64": 8, "__u64": 8}

    def __init__(self, aggregates, consts):
        self.agg = aggregates
        self.consts = consts

    def count(self, m):
        c = 1
        for d in m.dims:
            c *= evaluate(d, self.consts) if d else 0
        return c

    def type_info(self, m):
        """(size in bytes, alignment) of one element."""
        if m.kind == "scalar":
            s = self.SCALARS[m.type_name]
            return s, s
        body = m.body if m.body else self.agg[m.type_name]
        return self.body_info(body)

    def body_info(self, body):
        kind, members = body
        size, align, offs = 0, 1, 0
        bit, unit = 0, 0  # bits used in the open bitfield unit, its size
        for m in members:
            s, a = self.type_info(m)
            align = max(align, a)
            if m.bitfield is not None:
                if bit == 0:
                    offs = (offs + a - 1) // a * a
                    unit = s
                bit += evaluate(m.bitfield, self.consts)
                if bit >= 8 * unit:
                    offs += unit
                    bit = 0
                size = max(size, offs + (unit if bit else 0))
                continue
            if bit:
                offs += unit
                bit = 0
            s *= self.count(m)
            if kind == "union":
                size = max(size, s)
            else:
                offs = (offs + a - 1) // a * a + s
                size = offs
        size = (size + align - 1) // align * align
        return size, align

    def fields(self, body, base=0, prefix=""):
        kind, members = body
        off = 0
        bit = 0  # bit position inside the current bitfield byte
        for m in members:
            s, a = self.type_info(m)
            total = s * self.count(m)
            if m.bitfield is not None:
                n = evaluate(m.bitfield, self.consts)
                if m.name is not None:
                    yield prefix + m.name, base + off * 8 + bit, n
                bit += n
                if bit >= 8 * s:
                    off += s
                    bit = 0
                continue
            if kind != "union":
                off = (off + a - 1) // a * a
            if m.name is not None:
                yield prefix + m.name, base + off * 8, total * 8
            if m.kind != "scalar" and (m.body is not None) and m.name is None:
                yield from self.fields(m.body, base + off * 8, prefix)
            elif m.body is not None:
                yield from self.fields(m.body, base + off * 8, prefix + m.name + ".")
            if kind != "union":
                off += total


# --------------------------------------------------------- softcx's headers

# Kernel constants exported for the test to compare softcx's values with.
CONST_PREFIXES = ("MLX5_CMD_OP_", "MLX5_CMD_STAT_", "MLX5_CMD_DELIVERY_STAT_", "MLX5_EVENT_TYPE_",
                  "MLX5_PORT_CHANGE_SUBTYPE_", "MLX5_CQE_", "MLX5_CQ_STATE_", "MLX5_EQ_STATE_",
                  "MLX5_CQ_DB_REQ_", "MLX5_CQ_DOORBELL", "MLX5_EQ_DOORBEL_OFFSET", "MLX5_MAX_COMMANDS",
                  "MLX5_CMD_DATA_BLOCK_SIZE", "MLX5_PCI_CMD_XPORT", "CMD_IF_REV", "CMD_OWNER_",
                  "MLX5_QUERY_PAGES_IN_OP_MOD_", "MLX5_MANAGE_PAGES_IN_OP_MOD_", "MLX5_CAP_",
                  "HCA_CAP_OPMOD_GET_", "MLX5_MKC_ACCESS_MODE_", "MLX5_TEARDOWN_HCA_IN_PROFILE_",
                  "MLX5_VPORT_STATE_OP_MOD_", "MLX5_QUERY_VPORT_STATE_OUT_STATE_", "MLX5_CQ_ERROR_SYNDROME_",
                  "MLX5_CQC_STATUS_", "MLX5_CMD_HCA_CAP_", "MLX5_ATOMIC_OPS_", "MLX5_ROCE_",
                  "MLX5_NIC_IFC_", "MLX5_ADAPTER_PAGE_SHIFT", "MLX5_MODIFY_CQ_IN_OP_MOD_", "MLX5_CQ_MODIFY_",
                  "MLX5_EQE_OWNER_INIT_VAL", "MLX5_INVALID_LKEY", "MLX5_QPC_", "MLX5_QP_OPTPAR_",
                  "MLX5_NON_ZERO_RQ", "MLX5_SRQ_RQ", "MLX5_CRQ_RQ", "MLX5_ZERO_LEN_RQ", "MLX5_SRQC_STATE_",
                  "MLX5_ARM_RQ_IN_OP_MOD_", "MLX5_DCTC_STATE_", "MLX5_SEND_WQE_BB", "MLX5_RCV_DBR", "MLX5_SND_DBR")

NS_RE = re.compile(r"namespace\s+scx::prm::(\w+)\s*\{")
DECL_RE = re.compile(r"constexpr\s+(field|block)\s*<\s*([^,>]+?)\s*,\s*([^>]+?)\s*>\s+(\w+)\s*\{\s*\}")


def declared_fields(prm_dir):
    """[(namespace, name, header)] in declaration order, and the namespaces
    that declare a size_bytes constant."""
    out = []
    sized = set()
    for path in sorted(glob.glob(os.path.join(prm_dir, "*.h"))):
        text = strip_comments(open(path).read())
        for m in NS_RE.finditer(text):
            # The namespace body: up to its matching brace.
            depth, j = 1, m.end()
            while depth and j < len(text):
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            body = text[m.end():j]
            for d in DECL_RE.finditer(body):
                out.append((m.group(1), d.group(4), os.path.basename(path)))
            if re.search(r"constexpr\s+u32\s+size_bytes\s*=", body):
                sized.add(m.group(1))
    return out, sized


# ----------------------------------------------------------------------- main


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ifc", required=True)
    ap.add_argument("--ifc-extra", action="append", default=[],
                    help="another kernel file whose mlx5_ifc_*_bits structs and constants "
                         "count too (cmd.c, eq.c, mlx5_core.h, ...)")
    ap.add_argument("--device", action="append", required=True,
                    help="a C header of byte-level structs (device.h, qp.h, ...)")
    ap.add_argument("--prm", required=True)
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()

    ifc_agg, ifc_consts = load(args.ifc)
    for extra in args.ifc_extra:
        text = strip_comments(open(extra).read())
        for m in re.finditer(r"^struct mlx5_ifc_\w+_bits \{.*?^\};", text, flags=re.M | re.S):
            p = Parser(tokenize(m.group(0)))
            p.parse_file()
            for k, v in p.aggregates.items():
                ifc_agg.setdefault(k, v)
    dev_agg, dev_consts = {}, {}
    for path in args.device:
        a, c = load(path)
        for k, v in a.items():
            dev_agg.setdefault(k, v)
        for k, v in c.items():
            dev_consts.setdefault(k, v)
    ifc = IfcLayout(ifc_agg, ifc_consts)
    dev = CLayout(dev_agg, dev_consts)

    decls, sized = declared_fields(args.prm)
    namespaces = []
    for ns, _, _ in decls:
        if ns not in namespaces:
            namespaces.append(ns)

    kernel = []   # (ns, path, off, width)
    sources = {}
    sizes = {}    # ns -> kernel size in bits
    for ns in namespaces:
        for key in ("struct mlx5_ifc_%s_bits" % ns, "union mlx5_ifc_%s_bits" % ns):
            if key in ifc_agg:
                for path, off, w in ifc.fields(ifc_agg[key]):
                    kernel.append((ns, path, off, w))
                sources[ns] = "mlx5_ifc.h " + key
                sizes[ns] = ifc.size(key)
                break
        else:
            for key in ("struct mlx5_%s" % ns, "union mlx5_%s" % ns, "struct %s" % ns):
                if key in dev_agg:
                    for path, off, w in dev.fields(dev_agg[key]):
                        kernel.append((ns, path, off, w))
                    sources[ns] = "C header " + key
                    sizes[ns] = dev.body_info(dev_agg[key])[0] * 8
                    break

    lines = [
        "// SPDX-License-Identifier: GPL-2.0",
        "// Generated by scripts/ifc_offsets.py from the kernel's mlx5_ifc.h and",
        "// device.h; do not edit. Offsets and widths are in bits.",
        "#pragma once",
        "",
    ]
    headers = sorted({f for _, _, f in decls})
    for h in headers:
        lines.append('#include "prm/%s"' % h)
    lines += [
        "",
        "namespace kifc {",
        "",
        "struct kernel_field {",
        "\tconst char *layout;",
        "\tconst char *name;",
        "\tunsigned long bit_off;",
        "\tunsigned long bits;",
        "};",
        "",
        "struct declared_field {",
        "\tconst char *layout;",
        "\tconst char *name;",
        "\tunsigned long bit_off;",
        "\tunsigned long bits;",
        "};",
        "",
        "template <unsigned O, unsigned B> constexpr unsigned long width(scx::prm::field<O, B>) { return B; }",
        "template <unsigned O, unsigned N> constexpr unsigned long width(scx::prm::block<O, N>) { return N * 8ul; }",
        "",
        "// Which kernel definition each softcx layout was matched with, its size",
        "// there (bits; flexible arrays count 0) and softcx's size_bytes * 8 (or 0).",
        "struct layout_source {",
        "\tconst char *layout;",
        "\tconst char *kernel;",
        "\tunsigned long kernel_bits;",
        "\tunsigned long declared_bits;",
        "};",
        "",
        "inline constexpr layout_source sources[] = {",
    ]
    for ns in namespaces:
        declared_size = "scx::prm::%s::size_bytes * 8ul" % ns if ns in sized else "0"
        lines.append('\t{"%s", %s, 0x%x, %s},' % (
            ns, '"%s"' % sources[ns] if ns in sources else "nullptr", sizes.get(ns, 0), declared_size))
    lines += ["};", "", "inline constexpr kernel_field kernel_fields[] = {"]
    for ns, path, off, w in kernel:
        lines.append('\t{"%s", "%s", 0x%x, 0x%x},' % (ns, path, off, w))
    lines += ["};", "", "inline constexpr declared_field declared[] = {"]
    for ns, name, _ in decls:
        q = "scx::prm::%s::%s" % (ns, name)
        lines.append('\t{"%s", "%s", %s.bit_off, width(%s)},' % (ns, name, q, q))
    lines += ["};", "", "// Kernel enum constants softcx mirrors (opcodes, status codes, ...).",
              "struct kernel_const {", "\tconst char *name;", "\tunsigned long value;", "};", "",
              "inline constexpr kernel_const kernel_consts[] = {"]
    all_consts = dict(ifc_consts)
    all_consts.update(dev_consts)
    for extra in args.ifc_extra:
        for k, v in collect_constants(strip_comments(open(extra).read())).items():
            all_consts.setdefault(k, v)
    for name in sorted(all_consts):
        if not name.startswith(CONST_PREFIXES):
            continue
        try:
            value = evaluate(all_consts[name], all_consts)
        except (ValueError, SyntaxError):
            continue
        lines.append('\t{"%s", 0x%x},' % (name, value))
    lines += ["};", "", "} // namespace kifc", ""]

    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines))
    os.replace(tmp, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
