#include "quant/quantize.h"

#include <unistd.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "devtools/reference/reference_runner.h"
#include "ir/exception.h"
#include "ir/op_schema.h"
#include "passes/batch_norm_folding.h"
#include "passes/rewrite_utils.h"

namespace ptec::quant {
namespace {

const ir::OpSchema& op(const char* name) {
  const ir::OpSchema* s = ir::find_op(name);
  PTEC_ENFORCE(s != nullptr, NotFound, "quantization: operator {} is not in the op table", name);
  return *s;
}

std::vector<float> float_values(const ir::TensorData& t, const std::string& what) {
  PTEC_ENFORCE(t.spec.dtype == DType::Float, InvalidArgument, "{} has dtype {}; expected Float",
               what, to_string(t.spec.dtype));
  const int64_t n = t.spec.numel_upper_bound();
  PTEC_ENFORCE(t.data != nullptr && t.data->size() >= static_cast<size_t>(n) * sizeof(float),
               InvalidArgument, "{} ({}) does not hold its {} elements", what, t.spec.to_string(),
               n);
  std::vector<float> v(static_cast<size_t>(n));
  if (n > 0) std::memcpy(v.data(), t.data->data(), v.size() * sizeof(float));
  return v;
}

std::vector<int64_t> static_sizes(const ir::TensorSpec& spec, const std::string& what) {
  PTEC_ENFORCE(spec.is_static(), NotSupported, "{} has a symbolic shape {}", what,
               spec.to_string());
  return spec.upper_bound_sizes();
}

/// The constant placeholder behind a weight argument, and the edge (node, argument index) where
/// its dequantize goes: the op itself, or the permute_copy in between.
struct WeightEdge {
  ir::Node* placeholder = nullptr;
  ir::Node* user = nullptr;
  size_t arg = 0;
};

WeightEdge weight_edge(const ir::ExportedProgram& program, ir::Node* node, size_t arg) {
  PTEC_ENFORCE(arg < node->args().size() && node->arg(arg).is_node(), InvalidArgument,
               "quantization: node {} ({}): argument {} is not a tensor", node->name(),
               node->target(), arg);
  WeightEdge e{node->arg(arg).as_node(), node, arg};
  if (e.placeholder->is_op("aten::permute_copy") || e.placeholder->is_op("aten::t_copy")) {
    e.user = e.placeholder;
    e.arg = 0;
    e.placeholder = e.placeholder->arg(0).as_node();
  }
  PTEC_ENFORCE(e.placeholder->is_placeholder() &&
                   program.constant_for_placeholder(e.placeholder->name()) != nullptr,
               InvalidArgument,
               "quantization: node {} ({}): the weight argument {} is not a constant ({})",
               node->name(), node->target(), arg, e.placeholder->name());
  return e;
}

std::string weight_key(const std::string& placeholder, const QuantizationSpec& spec) {
  return placeholder + "|" + spec.to_string();
}

/// `data` [R, C] transposed to [C, R].
std::vector<float> transpose2d(const std::vector<float>& data, int64_t r, int64_t c) {
  std::vector<float> out(data.size());
  for (int64_t i = 0; i < r; ++i) {
    for (int64_t j = 0; j < c; ++j) {
      out[static_cast<size_t>(j * r + i)] = data[static_cast<size_t>(i * c + j)];
    }
  }
  return out;
}

/// Nodes of `arg` (a node or a list of nodes).
std::vector<ir::Node*> arg_nodes(const ir::Argument& arg) {
  std::vector<ir::Node*> out;
  ir::for_each_node(arg, [&](ir::Node* n) { out.push_back(n); });
  return out;
}

/// Union-find over value names.
class ValueSets {
 public:
  std::string find(const std::string& v) {
    auto it = parent_.find(v);
    if (it == parent_.end()) {
      parent_[v] = v;
      return v;
    }
    if (it->second == v) return v;
    std::string root = find(it->second);
    parent_[v] = root;
    return root;
  }
  void unite(const std::string& a, const std::string& b) {
    const std::string ra = find(a), rb = find(b);
    if (ra != rb) parent_[rb] = ra;
  }
  std::vector<std::string> all() const {
    std::vector<std::string> out;
    for (const auto& [v, p] : parent_) out.push_back(v);
    return out;
  }

 private:
  std::map<std::string, std::string> parent_;
};

void check_activation(const ir::ExportedProgram& program, const ir::Node* user,
                      const ir::Node* value) {
  PTEC_ENFORCE(value->meta().val.size() == 1 && value->spec().dtype == DType::Float &&
                   program.constant_for_placeholder(value->name()) == nullptr,
               InvalidArgument,
               "quantization: node {} ({}): input {} is annotated as an activation but is not a "
               "float activation",
               user->name(), user->target(), value->name());
}

}  // namespace

PreparedProgram prepare(const ir::ExportedProgram& program, const Quantizer& quantizer) {
  PTEC_ENFORCE(program.stage() == ir::Stage::Aten, InvalidArgument,
               "quantization needs a program at stage ATEN; this one is at stage {}",
               ir::to_string(program.stage()));
  PreparedProgram p;
  p.program = program;
  passes::BatchNormFolding().run(p.program);
  p.quantizer = quantizer.name();
  p.annotations = quantizer.annotate(p.program);
  const ir::Graph& g = p.program.graph();

  ValueSets sets;
  std::map<std::string, QuantizationSpec> spec_of;  // first spec of each value
  auto add_value = [&](const std::string& v, const QuantizationSpec& spec) {
    sets.find(v);
    spec_of.emplace(v, spec);
  };
  for (const auto& [name, a] : p.annotations) {
    ir::Node* node = g.find(name);
    PTEC_ENFORCE(node != nullptr, InvalidArgument, "quantizer {} annotated an unknown node {}",
                 p.quantizer, name);
    for (const auto& [i, spec] : a.input_activations) {
      PTEC_ENFORCE(i < node->args().size(), InvalidArgument,
                   "quantization: node {} ({}) has no argument {}", name, node->target(), i);
      for (ir::Node* v : arg_nodes(node->arg(i))) {
        check_activation(p.program, node, v);
        if (spec.is_dynamic) continue;
        add_value(v->name(), spec);
        if (a.share_inputs_with_output) sets.unite(name, v->name());
      }
    }
    if (a.output) add_value(name, *a.output);
    for (const auto& [i, spec] : a.weights) {
      const WeightEdge e = weight_edge(p.program, node, i);
      const std::string key = weight_key(e.placeholder->name(), spec);
      if (p.weights.count(key) != 0) continue;
      const ir::TensorData& data = *p.program.constant_for_placeholder(e.placeholder->name());
      const std::string what = "weight " + e.placeholder->name();
      std::vector<int64_t> sizes = static_sizes(data.spec, what);
      std::vector<float> values = float_values(data, what);
      QuantizationSpec observer_spec = spec;
      if (spec.qscheme == QScheme::PerGroupSymmetric) {
        PTEC_ENFORCE(sizes.size() == 2, InvalidArgument,
                     "quantization: per-group weight {} of node {} must be 2-D, got {}",
                     e.placeholder->name(), name, data.spec.to_string());
        if (spec.ch_axis.value_or(0) == 1) {  // [K, N]: observe it as [N, K]
          values = transpose2d(values, sizes[0], sizes[1]);
          std::swap(sizes[0], sizes[1]);
        }
        observer_spec.ch_axis = 0;
      }
      WeightQuantization w{e.placeholder->name(), spec, make_observer(observer_spec)};
      w.observer->observe(values.data(), sizes);
      p.weights.emplace(key, std::move(w));
    }
  }
  // Shared results, once every value has its own spec.
  for (const auto& [name, a] : p.annotations) {
    if (!a.output_shares_with) continue;
    auto it = spec_of.find(*a.output_shares_with);
    PTEC_ENFORCE(it != spec_of.end(), InvalidArgument,
                 "quantization: node {} shares the parameters of {}, which is not quantized", name,
                 *a.output_shares_with);
    add_value(name, it->second);
    sets.unite(*a.output_shares_with, name);
  }
  std::map<std::string, size_t> group_of_root;
  for (const std::string& v : sets.all()) {
    const std::string root = sets.find(v);
    auto [it, inserted] = group_of_root.emplace(root, p.groups.size());
    if (inserted) {
      ObserverGroup group;
      group.spec = spec_of.at(root);
      group.observer = make_observer(group.spec);
      p.groups.push_back(std::move(group));
    }
    p.groups[it->second].values.push_back(v);
    p.group_of[v] = it->second;
  }
  return p;
}

void calibrate(PreparedProgram& prepared, const std::vector<std::vector<ir::TensorData>>& inputs,
               const CalibrationOptions& options) {
  PTEC_ENFORCE(!inputs.empty(), InvalidArgument,
               "calibration needs at least one input set (it always runs at least once)");
  size_t n = inputs.size();
  if (options.max_samples > 0) n = std::min(n, options.max_samples);
  const ir::Graph& g = prepared.program.graph();
  devtools::ReferenceRunner runner(prepared.program);
  std::map<const ir::Node*, Observer*> by_node;
  for (const auto& [value, gi] : prepared.group_of) {
    by_node[&g.get(value)] = prepared.groups[gi].observer.get();
  }
  std::set<const ir::Node*> observed;
  for (const ir::Node* node : runner.observed_nodes()) observed.insert(node);
  for (const auto& [node, obs] : by_node) {
    PTEC_ENFORCE(node->is_placeholder() || observed.count(node) != 0, NotSupported,
                 "calibration cannot observe node {} ({}): the reference run does not produce "
                 "its value",
                 node->name(), node->target());
  }
  const std::vector<std::string> user_inputs = prepared.program.signature().user_inputs();
  const bool progress = options.show_progress && isatty(fileno(stderr)) != 0;
  for (size_t k = 0; k < n; ++k) {
    const std::vector<ir::TensorData>& set = inputs[k];
    PTEC_ENFORCE(set.size() == user_inputs.size(), InvalidArgument,
                 "calibration input set {} has {} tensors; the program takes {} inputs", k,
                 set.size(), user_inputs.size());
    for (size_t i = 0; i < user_inputs.size(); ++i) {
      auto it = by_node.find(&g.get(user_inputs[i]));
      if (it == by_node.end()) continue;
      const std::vector<float> v = float_values(set[i], fmt::format("calibration input {}", i));
      it->second->observe(v.data(), static_sizes(set[i].spec, user_inputs[i]));
    }
    runner.run(set, [&](const devtools::ObservedOutput& o) {
      auto it = by_node.find(o.node);
      if (it == by_node.end() || o.outputs.empty()) return;
      const std::vector<float> v = float_values(o.outputs[0], "output of " + o.node_name);
      it->second->observe(v.data(), static_sizes(o.outputs[0].spec, o.node_name));
    });
    ++prepared.calibration_runs;
    if (progress) {
      constexpr size_t kWidth = 30;
      const size_t done = (k + 1) * kWidth / n;
      std::fprintf(stderr, "\rcalibrating [%s%s] %zu/%zu", std::string(done, '#').c_str(),
                   std::string(kWidth - done, ' ').c_str(), k + 1, n);
      if (k + 1 == n) std::fputc('\n', stderr);
      std::fflush(stderr);
    }
  }
}

namespace {

// Replaces `old_node` by `replacement` in the arguments of `user` (also inside lists).
void replace_input(ir::Graph& g, ir::Node* user, ir::Node* old_node, ir::Node* replacement) {
  for (size_t i = 0; i < user->args().size(); ++i) {
    const ir::Argument& a = user->arg(i);
    if (a.is_node() && a.as_node() == old_node) {
      g.set_arg(user, i, replacement);
    } else if (a.is_list()) {
      ir::ArgumentList list = a.as_list();
      bool changed = false;
      for (ir::Argument& item : list) {
        if (item.is_node() && item.as_node() == old_node) {
          item = replacement;
          changed = true;
        }
      }
      if (changed) g.set_arg(user, i, ir::Argument(std::move(list)));
    }
  }
}

// The node a quantize of `value` goes before: the next node (after the placeholders).
ir::Node* after(ir::Graph& g, ir::Node* value) {
  bool seen = false;
  for (ir::Node* n : g.nodes()) {
    if (seen && !n->is_placeholder()) return n;
    if (n == value) seen = true;
  }
  return nullptr;
}

QParams qparams_of(const Observer& o, const std::string& what) {
  try {
    return o.calculate_qparams();
  } catch (const Exception& e) {
    raise(e.code(), "{}: {}", what, e.what());
  }
}

class Converter {
 public:
  Converter(const PreparedProgram& prepared, ir::ExportedProgram& out)
      : prepared_(prepared), out_(out), g_(out.graph()) {}

  void static_value(const std::string& name, const QParams& q) {
    ir::Node* v = &g_.get(name);
    const std::vector<ir::Node*> users = v->users();
    const DType dt = storage_dtype(q.dtype);
    const double scale = q.scales[0];
    const int64_t zp = q.zero_points[0];
    ir::Node* qn =
        passes::insert_call(g_, op("quantized_decomposed::quantize_per_tensor"),
                            {v, scale, zp, q.quant_min, q.quant_max, dt}, after(g_, v), v);
    for (ir::Node* u : users) {
      ir::Node* dq = passes::insert_call(g_, op("quantized_decomposed::dequantize_per_tensor"),
                                         {qn, scale, zp, q.quant_min, q.quant_max, dt}, u, v);
      replace_input(g_, u, v, dq);
      if (u->is_output()) {
        for (ir::OutputSpec& o : out_.signature().outputs) {
          if (o.name == v->name()) o.name = dq->name();
        }
      }
    }
    ++activations_;
  }

  void dynamic_edge(ir::Node* user, size_t arg, const QuantizationSpec& spec) {
    for (ir::Node* v : arg_nodes(user->arg(arg))) {
      const DType dt = storage_dtype(spec.dtype);
      ir::Node* cq = passes::insert_call(
          g_, op("quantized_decomposed::choose_qparams.tensor"),
          {v, spec.quant_min, spec.quant_max, static_cast<double>(FLT_EPSILON), dt}, user, v);
      ir::Node* s = passes::insert_call(g_, op("getitem"), {cq, int64_t{0}}, user, v);
      ir::Node* z = passes::insert_call(g_, op("getitem"), {cq, int64_t{1}}, user, v);
      ir::Node* qn = passes::insert_call(g_, op("quantized_decomposed::quantize_per_tensor.tensor"),
                                         {v, s, z, spec.quant_min, spec.quant_max, dt}, user, v);
      ir::Node* dq =
          passes::insert_call(g_, op("quantized_decomposed::dequantize_per_tensor.tensor"),
                              {qn, s, z, spec.quant_min, spec.quant_max, dt}, user, v);
      replace_input(g_, user, v, dq);
      ++dynamic_;
    }
  }

  void weight(ir::Node* node, size_t arg, const QuantizationSpec& spec) {
    const WeightEdge e = weight_edge(out_, node, arg);
    const std::string key = weight_key(e.placeholder->name(), spec);
    const WeightQuantization& w = prepared_.weights.at(key);
    auto it = stored_.find(key);
    if (it == stored_.end()) it = stored_.emplace(key, store(e.placeholder, w)).first;
    const Stored& s = it->second;
    const QParams& q = s.q;
    const DType dt = storage_dtype(q.dtype);
    ir::Node* dq = nullptr;
    if (q.per_tensor()) {
      dq =
          passes::insert_call(g_, op("quantized_decomposed::dequantize_per_tensor"),
                              {s.data, q.scales[0], q.zero_points[0], q.quant_min, q.quant_max, dt},
                              e.user, e.placeholder);
    } else if (q.group_size == 0) {
      dq = passes::insert_call(
          g_, op("quantized_decomposed::dequantize_per_channel"),
          {s.data, s.scales, s.zero_points, *q.axis, q.quant_min, q.quant_max, dt}, e.user,
          e.placeholder);
    } else {
      // [N, K] → [N * K / g, g] → per-channel dequantize along axis 0 → [N, K] (→ [K, N]).
      const std::vector<int64_t> sizes = s.data->spec().upper_bound_sizes();
      const int64_t rows = sizes[0] * sizes[1] / q.group_size;
      ir::Node* grouped = passes::insert_call(g_, op("aten::view_copy"),
                                              {s.data, std::vector<int64_t>{rows, q.group_size}},
                                              e.user, e.placeholder);
      ir::Node* deq = passes::insert_call(
          g_, op("quantized_decomposed::dequantize_per_channel"),
          {grouped, s.scales, ir::Argument(), int64_t{0}, q.quant_min, q.quant_max, dt}, e.user,
          e.placeholder);
      dq = passes::insert_call(g_, op("aten::view_copy"), {deq, sizes}, e.user, e.placeholder);
      if (w.spec.ch_axis.value_or(0) == 1) {
        dq = passes::insert_call(g_, op("aten::permute_copy"), {dq, std::vector<int64_t>{1, 0}},
                                 e.user, e.placeholder);
      }
    }
    g_.set_arg(e.user, e.arg, dq);
    ++weights_;
  }

  std::string summary(size_t runs) const {
    return fmt::format(
        "{}: {} static activation value(s), {} dynamic input(s), {} weight use(s) of {} "
        "constant(s); calibrated on {} input set(s)",
        prepared_.quantizer, activations_, dynamic_, weights_, stored_.size(), runs);
  }

 private:
  struct Stored {
    QParams q;
    ir::Node* data = nullptr;
    ir::Node* scales = nullptr;
    ir::Node* zero_points = nullptr;
  };

  Stored store(ir::Node* placeholder, const WeightQuantization& w) {
    Stored s;
    s.q = qparams_of(*w.observer, "weight " + w.placeholder);
    const ir::TensorData& data = *out_.constant_for_placeholder(placeholder->name());
    std::vector<int64_t> sizes = data.spec.upper_bound_sizes();
    std::vector<float> values = float_values(data, "weight " + w.placeholder);
    const QParams& q = s.q;
    std::vector<uint8_t> bytes(values.size());
    if (q.group_size > 0) {
      if (w.spec.ch_axis.value_or(0) == 1) {
        values = transpose2d(values, sizes[0], sizes[1]);
        std::swap(sizes[0], sizes[1]);
      }
      for (size_t i = 0; i < values.size(); ++i) {
        const auto gi = i / static_cast<size_t>(q.group_size);
        bytes[i] = static_cast<uint8_t>(static_cast<int8_t>(q.quantize(values[i], gi)));
      }
    } else if (q.per_tensor()) {
      for (size_t i = 0; i < values.size(); ++i) {
        bytes[i] = static_cast<uint8_t>(q.quantize(values[i], 0));
      }
    } else {
      const auto axis = static_cast<size_t>(*q.axis);
      int64_t inner = 1;
      for (size_t d = axis + 1; d < sizes.size(); ++d) inner *= sizes[d];
      const int64_t channels = sizes[axis];
      for (size_t i = 0; i < values.size(); ++i) {
        const auto c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels);
        bytes[i] = static_cast<uint8_t>(q.quantize(values[i], c));
      }
    }
    const DType dt = storage_dtype(q.dtype);
    const std::string base = w.placeholder;
    s.data = passes::add_parameter(
        out_, base + "_quantized",
        {ir::TensorSpec(dt, sizes), ir::Buffer::from_vector(std::move(bytes))}, placeholder);
    if (!q.per_tensor()) {
      const auto n = static_cast<int64_t>(q.scales.size());
      s.scales = passes::add_parameter(
          out_, base + "_scales",
          {ir::TensorSpec(DType::Double, std::vector<int64_t>{n}),
           ir::Buffer::copy_of(q.scales.data(), q.scales.size() * sizeof(double))},
          placeholder);
      if (q.group_size == 0) {
        s.zero_points = passes::add_parameter(
            out_, base + "_zero_points",
            {ir::TensorSpec(DType::Long, std::vector<int64_t>{n}),
             ir::Buffer::copy_of(q.zero_points.data(), q.zero_points.size() * sizeof(int64_t))},
            placeholder);
      }
    }
    return s;
  }

  const PreparedProgram& prepared_;
  ir::ExportedProgram& out_;
  ir::Graph& g_;
  std::map<std::string, Stored> stored_;
  size_t activations_ = 0, dynamic_ = 0, weights_ = 0;
};

}  // namespace

ir::ExportedProgram convert(const PreparedProgram& prepared) {
  PTEC_ENFORCE(prepared.calibration_runs > 0, InvalidState,
               "convert: the prepared program was never calibrated (calibrate runs it at least "
               "once)");
  ir::ExportedProgram out = prepared.program;
  Converter c(prepared, out);
  for (const ObserverGroup& group : prepared.groups) {
    const QParams q = qparams_of(*group.observer, "value " + group.values.front());
    for (const std::string& v : group.values) c.static_value(v, q);
  }
  for (const auto& [name, a] : prepared.annotations) {
    for (const auto& [i, spec] : a.input_activations) {
      if (spec.is_dynamic) c.dynamic_edge(&out.graph().get(name), i, spec);
    }
  }
  for (const auto& [name, a] : prepared.annotations) {
    for (const auto& [i, spec] : a.weights) c.weight(&out.graph().get(name), i, spec);
  }
  passes::remove_unused_constants(out);
  out.provenance().push_back({"quantize", c.summary(prepared.calibration_runs)});
  return out;
}

ir::ExportedProgram quantize(const ir::ExportedProgram& program, const Quantizer& quantizer,
                             const std::vector<std::vector<ir::TensorData>>& calibration_inputs,
                             const CalibrationOptions& options) {
  PreparedProgram p = prepare(program, quantizer);
  calibrate(p, calibration_inputs, options);
  return convert(p);
}

double sqnr_db(const ir::TensorData& reference, const ir::TensorData& value) {
  const std::vector<float> x = float_values(reference, "sqnr reference");
  const std::vector<float> y = float_values(value, "sqnr value");
  PTEC_ENFORCE(x.size() == y.size(), InvalidArgument, "sqnr: {} vs {} elements", x.size(),
               y.size());
  double signal = 0, noise = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    signal += static_cast<double>(x[i]) * x[i];
    const double d = static_cast<double>(x[i]) - y[i];
    noise += d * d;
  }
  if (noise == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(signal / noise);
}

}  // namespace ptec::quant
