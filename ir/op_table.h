#pragma once

#include "core/span.h"
#include "ir/op_schema.h"

namespace ptec::ir {

/// One row of the op table: the functional schema (what the IR holds), the out-variant schema
/// the emitter calls (nullptr for ops without one), and the shape function.
struct OpTableRow {
  const char* schema;
  const char* out_schema;
  ShapeFn shape_fn;
  /// See OpSchema::opaque_outputs.
  bool opaque_outputs = false;
};

/// The op table (ir/op_table.cpp): the data the registry (find_op/get_op/all_ops), the CLI and
/// the tests read.
Span<const OpTableRow> op_table();

}  // namespace ptec::ir
