"""SIMD sums of table lookups for the lookup kernel (imported only where numba is).

:func:`sum4` (a factor's cell from the row's code) and :func:`sum4_partial` (from a
partial cell the row computed) are numba intrinsics: the loop over a component's factors
written in LLVM IR, each lookup one masked load of up to four classes' log-values
(``llvm.masked.load``: no read past the table for fewer classes) added to a vector
accumulator, in two chains (even and odd factors, added last: both sum the same terms in
the same order, so the same factors give the same bits). numba does not vectorise scalar
sums (its SLP vectoriser is off), which took a load and an add per class and lookup.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

F64 = ir.DoubleType()
V4 = ir.VectorType(F64, 4)
I1, I8, I16, I32, I64 = (ir.IntType(b) for b in (1, 8, 16, 32, 64))


def _masked_load(builder, table, width):
    """A function ``at -> `` the masked load of ``table.data[at : at + 4]`` (lanes below
    ``width``), and its zero vector."""
    kind = ir.FunctionType(V4, [table.data.type, I32, ir.VectorType(I1, 4), V4])
    load = cgutils.get_or_insert_function(builder.module, kind, "llvm.masked.load.v4f64.p0")
    width = builder.sext(width, I64) if width.type.width < 64 else width
    mask = ir.VectorType(I1, 4)(ir.Undefined)
    for c in range(4):
        lane = builder.icmp_signed(">", width, ir.Constant(I64, c))
        mask = builder.insert_element(mask, lane, ir.Constant(I32, c))
    zero = ir.Constant(V4, [0.0] * 4)

    def at(index):
        return builder.call(
            load, [builder.gep(table.data, [index]), ir.Constant(I32, 8), mask, zero]
        )

    return at, zero


def _two_chains(context, builder, signature, lookup, f0, f1, zero):
    """The sums of ``lookup(f)`` (a list of vectors, one per row) for ``f0 <= f < f1``:
    per row, even factors in one chain and odd in the other, an odd last factor into the
    first, the chains added last; as a tuple of each row's four lanes in turn."""
    one, two = ir.Constant(I64, 1), ir.Constant(I64, 2)
    entry = builder.basic_block
    loop, body, tail, last, done = (
        builder.append_basic_block(name) for name in ("loop", "body", "tail", "last", "done")
    )
    rows = signature.return_type.count // 4
    builder.branch(loop)
    builder.position_at_end(loop)
    f = builder.phi(I64)
    a = [builder.phi(V4) for _ in range(rows)]
    b = [builder.phi(V4) for _ in range(rows)]
    f.add_incoming(f0, entry)
    for phi in (*a, *b):
        phi.add_incoming(zero, entry)
    builder.cbranch(builder.icmp_unsigned("<", builder.add(f, one), f1), body, tail)
    builder.position_at_end(body)
    f.add_incoming(builder.add(f, two), body)
    even, odd = lookup(f), lookup(builder.add(f, one))
    for k in range(rows):
        a[k].add_incoming(builder.fadd(a[k], even[k]), body)
        b[k].add_incoming(builder.fadd(b[k], odd[k]), body)
    builder.branch(loop)
    builder.position_at_end(tail)
    builder.cbranch(builder.icmp_unsigned("<", f, f1), last, done)
    builder.position_at_end(last)
    extra = lookup(f)
    ends = [builder.fadd(a[k], extra[k]) for k in range(rows)]
    builder.branch(done)
    builder.position_at_end(done)
    firsts = [builder.phi(V4) for _ in range(rows)]  # the phis first, then the adds
    lanes = []
    for k, first in enumerate(firsts):
        first.add_incoming(a[k], tail)
        first.add_incoming(ends[k], last)
        total = builder.fadd(first, b[k])
        lanes += [builder.extract_element(total, ir.Constant(I32, c)) for c in range(4)]
    return context.make_tuple(builder, signature.return_type, lanes)


@intrinsic
def sum4(typingctx, table_t, cell_t, rel_t, codes_t, row_t, col_t, f0_t, f1_t, step_t, width_t):
    """``(s0, s1, s2, s3)``: ``s_c = sum_{f0 <= f < f1} table[cell + rel[f] +
    codes[row, col[f]] step + c]`` for ``c < width`` (0 beyond): ``table`` float64 (1-D),
    ``rel`` and ``col`` uint64 (1-D), ``codes`` uint16 (2-D, C order), the others
    integers (``f0``, ``f1``, ``cell``, ``step`` unsigned)."""
    out_t = types.UniTuple(types.float64, 4)
    sig = out_t(table_t, cell_t, rel_t, codes_t, row_t, col_t, f0_t, f1_t, step_t, width_t)

    def codegen(context, builder, signature, args):
        table, cell, rel, codes, row, col, f0, f1, step, width = args
        table = context.make_array(table_t)(context, builder, table)
        rel = context.make_array(rel_t)(context, builder, rel)
        col = context.make_array(col_t)(context, builder, col)
        codes = context.make_array(codes_t)(context, builder, codes)
        stride = cgutils.unpack_tuple(builder, codes.strides, 2)[0]
        start = builder.bitcast(codes.data, I8.as_pointer())
        start = builder.bitcast(builder.gep(start, [builder.mul(row, stride)]), I16.as_pointer())
        load, zero = _masked_load(builder, table, width)

        def lookup(f):
            offset = builder.load(builder.gep(rel.data, [f]))
            code = builder.load(builder.gep(start, [builder.load(builder.gep(col.data, [f]))]))
            return [
                load(
                    builder.add(
                        builder.add(cell, offset), builder.mul(builder.zext(code, I64), step)
                    )
                )
            ]

        return _two_chains(context, builder, signature, lookup, f0, f1, zero)

    return sig, codegen


def _partial_codegen(table_t, part_t, index_t, rows: int):
    """The code of :func:`sum4_partial` for ``rows`` rows at once: arguments ``(table,
    cell_1 .. cell_rows, part, row_1 .. row_rows, index, f0, f1, width)``, each factor's
    index loaded once for all the rows."""

    def codegen(context, builder, signature, args):
        table, cells, part = args[0], args[1 : 1 + rows], args[1 + rows]
        offsets, (index, f0, f1, width) = args[2 + rows : 2 + 2 * rows], args[2 + 2 * rows :]
        table = context.make_array(table_t)(context, builder, table)
        part = context.make_array(part_t)(context, builder, part)
        index = context.make_array(index_t)(context, builder, index)
        starts = [builder.gep(part.data, [row]) for row in offsets]
        load, zero = _masked_load(builder, table, width)

        def lookup(f):
            at = builder.load(builder.gep(index.data, [f]))
            return [
                load(builder.add(cell, builder.load(builder.gep(start, [at]))))
                for cell, start in zip(cells, starts, strict=True)
            ]

        return _two_chains(context, builder, signature, lookup, f0, f1, zero)

    return codegen


@intrinsic
def sum4_partial(typingctx, table_t, cell_t, part_t, row_t, index_t, f0_t, f1_t, width_t):
    """``(s0, s1, s2, s3)``: ``s_c = sum_{f0 <= f < f1} table[cell + part[row +
    index[f]] + c]`` for ``c < width`` (0 beyond): ``table`` float64 (1-D), ``part`` and
    ``index`` uint64 (1-D), the others integers (``cell``, ``row``, ``f0``, ``f1``
    unsigned). A lookup is two loads of indices and one of the values: no multiply."""
    out_t = types.UniTuple(types.float64, 4)
    sig = out_t(table_t, cell_t, part_t, row_t, index_t, f0_t, f1_t, width_t)
    return sig, _partial_codegen(table_t, part_t, index_t, 1)


@intrinsic
def sum4_partial2(
    typingctx, table_t, cell_t, cell2_t, part_t, row_t, row2_t, index_t, f0_t, f1_t, width_t
):
    """:func:`sum4_partial` of two rows at once, the factors' indices read once for both
    (``(s0 .. s3, t0 .. t3)``: row ``row`` at ``cell``, then row ``row2`` at ``cell2``);
    each row's sums are the same numbers :func:`sum4_partial` gives."""
    out_t = types.UniTuple(types.float64, 8)
    sig = out_t(table_t, cell_t, cell2_t, part_t, row_t, row2_t, index_t, f0_t, f1_t, width_t)
    return sig, _partial_codegen(table_t, part_t, index_t, 2)
