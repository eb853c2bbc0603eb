// Recurrent ops: RNN, GRU and LSTM (opsets 7-14), unrolled over the time axis into core ATen
// ops (addmm / mm, split_with_sizes_copy, activations, mul / add, cat). The time axis must be
// static; the batch may be symbolic unless sequence_lens is given.
//
// Per direction, the input projection X·Wᵀ + bias is one addmm over every time step (a per-step
// addmm when the batch is symbolic); each step then adds H·Rᵀ (addmm) and applies the gates.
// W, R, B and P that are known at import time are sliced per direction and gate block and
// transposed here: the program holds the [input, gates] and [hidden, gates] matrices as
// PARAMETERs (initializers) or CONSTANT_TENSORs (other constants) and no per-run permute.
// Weights computed at run time get select_copy / slice_copy / permute_copy nodes instead.
//
// sequence_lens must be known at import time. A batch entry whose length L is shorter than the
// sequence keeps its state after step L - 1 (Y_h, Y_c come from the last valid step) and has
// Y = 0 past L; the reverse direction of such an entry runs over its first L steps backwards,
// through a gather of X by a constant index (and the same gather maps Y back).
//
// An absent or all-zero initial_h / initial_c is a zero state: the first step has no recurrent
// product. `clip` bounds every gate's pre-activation to [-clip, clip]. Activations: Sigmoid, Tanh,
// Relu, HardSigmoid, LeakyRelu, ThresholdedRelu, Elu, Softsign, Softplus, ScaledTanh, Affine
// (names case-insensitive); activation_alpha / activation_beta are consumed in order by the
// activations that take them (defaults as the ONNX operators of the same name).

#include <array>
#include <cctype>

#include "frontends/onnx/ops/op_util.h"

namespace ptec::onnx_import {
namespace {

enum class Kind { Rnn, Gru, Lstm };

/// Gate blocks of W / R: RNN [i], GRU [z, r, h], LSTM [i, o, f, c].
int64_t num_gates(Kind kind) { return kind == Kind::Rnn ? 1 : kind == Kind::Gru ? 3 : 4; }
/// Activations per direction: RNN f, GRU f g, LSTM f g h.
size_t num_activations(Kind kind) { return kind == Kind::Rnn ? 1 : kind == Kind::Gru ? 2 : 3; }

struct ActivationInfo {
  const char* name;  // lower case
  int params;        // 0: none, 1: alpha, 2: alpha and beta
  float alpha;
  float beta;
};

constexpr std::array<ActivationInfo, 11> kActivations = {{
    {"sigmoid", 0, 0, 0},
    {"tanh", 0, 0, 0},
    {"relu", 0, 0, 0},
    {"hardsigmoid", 2, 0.2f, 0.5f},
    {"leakyrelu", 1, 0.01f, 0},
    {"thresholdedrelu", 1, 1.0f, 0},
    {"elu", 1, 1.0f, 0},
    {"softsign", 0, 0, 0},
    {"softplus", 0, 0, 0},
    {"scaledtanh", 2, 1.0f, 1.0f},
    {"affine", 2, 1.0f, 0.0f},
}};

struct Activation {
  std::string name;  // lower case
  double alpha = 0;
  double beta = 0;
};

std::vector<std::string> attr_strings(const NodeView& node, std::string_view name) {
  for (const auto& a : node.proto().attribute()) {
    if (a.name() != name) continue;
    if (a.type() != onnx::AttributeProto::STRINGS) {
      node.fail(Error::InvalidArgument, "attribute '{}' must be a list of strings", name);
    }
    return {a.strings().begin(), a.strings().end()};
  }
  return {};
}

/// The activations of every direction (forward first), with their alpha / beta.
std::vector<Activation> parse_activations(const NodeView& node, Kind kind, size_t directions) {
  const size_t per = num_activations(kind);
  std::vector<std::string> names = attr_strings(node, "activations");
  if (names.empty()) {
    const std::vector<std::string> defaults =
        kind == Kind::Rnn   ? std::vector<std::string>{"Tanh"}
        : kind == Kind::Gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                            : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
    for (size_t d = 0; d < directions; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  } else if (names.size() != per * directions && !(names.size() == per && directions == 2)) {
    node.fail(Error::InvalidArgument, "activations has {} names; {} direction(s) need {}",
              names.size(), directions, per * directions);
  }
  const std::vector<float> alphas = node.attr_floats("activation_alpha");
  const std::vector<float> betas = node.attr_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  std::vector<Activation> out;
  for (const std::string& n : names) {
    std::string lower = n;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const ActivationInfo* info = nullptr;
    for (const ActivationInfo& a : kActivations) {
      if (lower == a.name) info = &a;
    }
    if (info == nullptr) node.fail(Error::NotSupported, "activation '{}' is not supported", n);
    Activation a{lower, info->alpha, info->beta};
    if (info->params >= 1 && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
    if (info->params >= 2 && next_beta < betas.size()) a.beta = betas[next_beta++];
    out.push_back(a);
  }
  // One direction's list for a bidirectional node: both directions use it (alpha / beta too).
  if (out.size() < per * directions) {
    const std::vector<Activation> forward = out;
    out.insert(out.end(), forward.begin(), forward.end());
  }
  return out;
}

/// A tensor that is known at import time (`constant`) or a graph node.
struct Part {
  std::optional<ConstTensor> constant;
  ir::Node* node = nullptr;
  bool from_initializer = false;
};

/// Everything one RNN/GRU/LSTM node needs while it is being unrolled.
class Unroller {
 public:
  Unroller(ImportContext& ctx, const NodeView& node, Kind kind)
      : ctx_(ctx), node_(node), kind_(kind) {}

  void run();

 private:
  // --- parts of W / R / B / P -----------------------------------------------------------------
  /// Direction d's rows [begin, begin + len) of input i ([D, rows, ...]): [len, ...].
  Part slice(size_t i, int64_t d, int64_t begin, int64_t len) {
    if (const ConstTensor* c = ctx_.constant(node_, i)) {
      const Value* v = ctx_.find(node_.input(i));
      ConstTensor s =
          eval::slice(*c, {eval::SliceAxis{0, d, 1, 1}, eval::SliceAxis{1, begin, 1, len}});
      std::vector<int64_t> sizes(s.sizes.begin() + 1, s.sizes.end());
      return Part{s.reshaped(sizes), nullptr, v != nullptr && v->is_initializer};
    }
    ir::Node* n = ctx_.call("aten::select_copy.int", {ctx_.input(node_, i), int64_t{0}, d});
    const int64_t rows = n->spec().upper_bound_sizes()[0];
    if (begin != 0 || len != rows) {
      n = ctx_.call("aten::slice_copy.Tensor", {n, int64_t{0}, begin, begin + len, int64_t{1}});
    }
    return Part{std::nullopt, n, false};
  }
  /// [rows, cols] → [cols, rows].
  Part transposed(Part p) {
    if (p.constant) {
      p.constant = eval::transpose(*p.constant, {1, 0});
      return p;
    }
    p.node = ctx_.call("aten::permute_copy", {p.node, std::vector<int64_t>{1, 0}});
    return p;
  }
  Part sum(const Part& a, const Part& b) {
    if (a.constant && b.constant) {
      return Part{eval::binary(eval::BinaryOp::Add, *a.constant, *b.constant), nullptr,
                  a.from_initializer && b.from_initializer};
    }
    return Part{std::nullopt, ctx_.call("aten::add.Tensor", {graph(a, "a"), graph(b, "b")}), false};
  }
  /// [a; b] (1-D).
  Part concat(const Part& a, const Part& b) {
    if (a.constant && b.constant) {
      return Part{eval::concat({&*a.constant, &*b.constant}, 0), nullptr,
                  a.from_initializer && b.from_initializer};
    }
    return Part{
        std::nullopt,
        ctx_.call("aten::cat", {std::vector<ir::Node*>{graph(a, "a"), graph(b, "b")}, int64_t{0}}),
        false};
  }
  /// The part as a graph tensor: a PARAMETER (from initializers) or CONSTANT_TENSOR named
  /// "<node>.<what>" when known at import time.
  ir::Node* graph(const Part& p, const std::string& what) {
    if (p.node != nullptr) return p.node;
    const std::string key = node_.source() + "." + what;
    return p.from_initializer ? ctx_.parameter(key, *p.constant)
                              : ctx_.constant_tensor(key, *p.constant);
  }

  // --- per-step helpers -----------------------------------------------------------------------
  ir::Node* call(std::string_view op, ir::ArgumentList args) {
    return ctx_.call(op, std::move(args));
  }
  ir::Node* activate(const Activation& a, ir::Node* x, bool clipped = true);
  /// x + h·mᵀ (m given transposed); h may be null (zero state): x alone.
  ir::Node* plus_recurrent(ir::Node* x, ir::Node* h, ir::Node* m_t) {
    if (h == nullptr) return x;
    return call("aten::addmm", {x, h, m_t});
  }
  /// aten::stack as unsqueeze_copy + cat (stack has no portable kernel).
  ir::Node* stack(const std::vector<ir::Node*>& parts, int64_t dim) {
    std::vector<ir::Node*> unsqueezed;
    for (ir::Node* p : parts) unsqueezed.push_back(call("aten::unsqueeze_copy", {p, dim}));
    if (unsqueezed.size() == 1) return unsqueezed[0];
    return call("aten::cat", {unsqueezed, dim});
  }
  ir::Node* mul(ir::Node* a, ir::Node* b) { return call("aten::mul.Tensor", {a, b}); }
  ir::Node* add(ir::Node* a, ir::Node* b) { return call("aten::add.Tensor", {a, b, 1}); }
  std::vector<ir::Node*> split(ir::Node* x, const std::vector<int64_t>& sizes) {
    ir::Node* s = call("aten::split_with_sizes_copy", {x, sizes, int64_t{1}});
    std::vector<ir::Node*> out;
    for (size_t i = 0; i < sizes.size(); ++i)
      out.push_back(ctx_.getitem(s, static_cast<int64_t>(i)));
    return out;
  }
  /// The state of direction d from initial_h (input 5) or initial_c (input 6): null when absent
  /// or all zeros.
  ir::Node* initial_state(size_t input, int64_t d);

  void unroll_direction(int64_t d, const Activation* acts);

  ImportContext& ctx_;
  const NodeView& node_;
  Kind kind_;
  int64_t directions_ = 1;
  int64_t hidden_ = 0;
  int64_t seq_ = 0;
  int64_t time_dim_ = 0;  // of X and of the per-direction Y
  ir::Shape x_shape_;
  std::optional<double> clip_;
  bool reverse_only_ = false;
  bool linear_before_reset_ = false;
  bool input_forget_ = false;
  /// Per batch entry; empty when every entry has the full length.
  std::vector<int64_t> lengths_;
  std::vector<ir::Node*> y_;    // per direction: [S, B, H] (layout 0) or [B, S, H]
  std::vector<ir::Node*> y_h_;  // per direction: [B, H]
  std::vector<ir::Node*> y_c_;
  ir::Node* zero_ = nullptr;  // scalar 0: Y (and a zero state) past an entry's length
};

ir::Node* Unroller::activate(const Activation& a, ir::Node* x, bool clipped) {
  if (clipped && clip_) x = call("aten::clamp", {x, -*clip_, *clip_});
  const std::string& n = a.name;
  if (n == "sigmoid") return call("aten::sigmoid", {x});
  if (n == "tanh") return call("aten::tanh", {x});
  if (n == "relu") return call("aten::relu", {x});
  if (n == "leakyrelu") return call("aten::leaky_relu", {x, a.alpha});
  if (n == "elu") return call("aten::elu", {x, a.alpha, 1, 1});
  if (n == "hardsigmoid") {
    ir::Node* y = call("aten::add.Scalar", {call("aten::mul.Scalar", {x, a.alpha}), a.beta, 1});
    return call("aten::clamp", {y, 0.0, 1.0});
  }
  if (n == "thresholdedrelu") return mul(x, call("aten::gt.Scalar", {x, a.alpha}));
  if (n == "softsign") {
    return call("aten::div.Tensor",
                {x, call("aten::add.Scalar", {call("aten::abs", {x}), 1.0, 1})});
  }
  if (n == "softplus") {
    return call("aten::log", {call("aten::add.Scalar", {call("aten::exp", {x}), 1.0, 1})});
  }
  if (n == "scaledtanh") {
    return call("aten::mul.Scalar",
                {call("aten::tanh", {call("aten::mul.Scalar", {x, a.beta})}), a.alpha});
  }
  // affine
  return call("aten::add.Scalar", {call("aten::mul.Scalar", {x, a.alpha}), a.beta, 1});
}

ir::Node* Unroller::initial_state(size_t input, int64_t d) {
  if (!node_.has_input(input)) return nullptr;
  const std::string what = input == 5 ? "initial_h" : "initial_c";
  const ir::Shape shape = ctx_.input_shape(node_, input);
  const bool batch_first = time_dim_ == 1;
  const size_t dir_dim = batch_first ? 1 : 0;
  const size_t batch_dim = batch_first ? 0 : 1;
  if (shape.size() != 3 || shape[dir_dim] != ir::SymInt(directions_) ||
      shape[batch_dim] != x_shape_[batch_dim] || shape[2] != ir::SymInt(hidden_)) {
    node_.fail(
        Error::InvalidArgument,
        "{} ('{}') is {}; X {} with {} direction(s) and hidden_size {} needs {}", what,
        node_.input(input), ctx_.input_spec(node_, input).to_string(),
        ctx_.input_spec(node_, 0).to_string(), directions_, hidden_,
        batch_first ? "[batch, directions, hidden] (layout 1)" : "[directions, batch, hidden]");
  }
  if (const ConstTensor* c = ctx_.constant(node_, input)) {
    bool zero = true;
    for (int64_t i = 0; i < c->numel() && zero; ++i) zero = c->double_at(i) == 0.0;
    if (zero) return nullptr;
  }
  return call("aten::select_copy.int",
              {ctx_.input(node_, input), static_cast<int64_t>(dir_dim), d});
}

void Unroller::run() {
  const std::string direction = node_.attr_string("direction", "forward");
  if (direction == "bidirectional") {
    directions_ = 2;
  } else if (direction == "reverse") {
    reverse_only_ = true;
  } else if (direction != "forward") {
    node_.fail(Error::InvalidArgument, "unknown direction '{}'", direction);
  }
  const int64_t layout = node_.opset() >= 14 ? node_.attr_int("layout", 0) : 0;
  if (layout != 0 && layout != 1)
    node_.fail(Error::InvalidArgument, "layout must be 0 or 1, got {}", layout);
  time_dim_ = layout;
  const size_t batch_dim = layout == 0 ? 1 : 0;
  if (const std::optional<float> c = node_.attr_float_opt("clip")) {
    if (!(*c > 0)) node_.fail(Error::InvalidArgument, "clip must be positive, got {}", *c);
    clip_ = *c;
  }
  linear_before_reset_ = kind_ == Kind::Gru && node_.attr_int("linear_before_reset", 0) != 0;
  input_forget_ = kind_ == Kind::Lstm && node_.attr_int("input_forget", 0) != 0;

  // Shapes: X [S, B, I] (layout 1: [B, S, I]), W [D, G*H, I], R [D, G*H, H].
  x_shape_ = ctx_.input_shape(node_, 0);
  if (x_shape_.size() != 3) {
    node_.fail(Error::InvalidArgument, "X ('{}') must be 3-D, got {}", node_.input(0),
               ctx_.input_spec(node_, 0).to_string());
  }
  if (!x_shape_[time_dim_].is_static()) {
    node_.fail(Error::NotSupported,
               "X ('{}') has a dynamic sequence length (dim {} of {}): {} is unrolled over time, "
               "which must be static",
               node_.input(0), time_dim_, ctx_.input_spec(node_, 0).to_string(), node_.op_type());
  }
  if (!x_shape_[2].is_static()) {
    node_.fail(Error::NotSupported, "X ('{}') has a dynamic input size (dim 2)", node_.input(0));
  }
  seq_ = x_shape_[time_dim_].value();
  if (seq_ < 1) node_.fail(Error::NotSupported, "X ('{}') has an empty sequence", node_.input(0));
  const int64_t input_size = x_shape_[2].value();
  const int64_t gates = num_gates(kind_);
  const std::vector<int64_t> w = ctx_.input_sizes(node_, 1);
  const std::vector<int64_t> r = ctx_.input_sizes(node_, 2);
  if (r.size() != 3)
    node_.fail(Error::InvalidArgument, "R must be 3-D, got {}", sizes_to_string(r));
  hidden_ = node_.attr_int("hidden_size", r[2]);
  if (w != std::vector<int64_t>{directions_, gates * hidden_, input_size} ||
      r != std::vector<int64_t>{directions_, gates * hidden_, hidden_}) {
    node_.fail(
        Error::InvalidArgument,
        "W {} and R {} do not fit {} direction(s), {} gate(s), hidden_size {} and input size {}",
        sizes_to_string(w), sizes_to_string(r), directions_, gates, hidden_, input_size);
  }
  if (node_.has_input(3)) {
    const std::vector<int64_t> b = ctx_.input_sizes(node_, 3);
    if (b != std::vector<int64_t>{directions_, 2 * gates * hidden_}) {
      node_.fail(Error::InvalidArgument, "B is {}; expected [{}, {}]", sizes_to_string(b),
                 directions_, 2 * gates * hidden_);
    }
  }
  if (kind_ == Kind::Lstm && node_.has_input(7)) {
    const std::vector<int64_t> p = ctx_.input_sizes(node_, 7);
    if (p != std::vector<int64_t>{directions_, 3 * hidden_}) {
      node_.fail(Error::InvalidArgument, "P is {}; expected [{}, {}]", sizes_to_string(p),
                 directions_, 3 * hidden_);
    }
  }
  if (node_.has_input(4)) {
    const ConstTensor& lens = ctx_.require_constant(node_, 4, "sequence_lens");
    if (!x_shape_[batch_dim].is_static() ||
        lens.sizes != std::vector<int64_t>{x_shape_[batch_dim].value()}) {
      node_.fail(Error::InvalidArgument,
                 "sequence_lens is {}; X {} needs one length per batch entry",
                 sizes_to_string(lens.sizes), ctx_.input_spec(node_, 0).to_string());
    }
    lengths_ = lens.to_int64();
    bool full = true;
    for (int64_t l : lengths_) {
      if (l < 0 || l > seq_) {
        node_.fail(Error::InvalidArgument, "sequence_lens holds {}, outside [0, {}]", l, seq_);
      }
      full = full && l == seq_;
    }
    if (full) lengths_.clear();
  }

  const std::vector<Activation> acts =
      parse_activations(node_, kind_, static_cast<size_t>(directions_));
  for (int64_t d = 0; d < directions_; ++d) {
    unroll_direction(d, acts.data() + static_cast<size_t>(d) * num_activations(kind_));
  }

  // Y [S, D, B, H] (layout 1: [B, S, D, H]); Y_h, Y_c [D, B, H] (layout 1: [B, D, H]).
  if (node_.has_output(0)) ctx_.set_output(node_, 0, stack(y_, layout == 0 ? 1 : 2));
  if (node_.has_output(1)) ctx_.set_output(node_, 1, stack(y_h_, layout));
  if (kind_ == Kind::Lstm && node_.has_output(2)) ctx_.set_output(node_, 2, stack(y_c_, layout));
}

void Unroller::unroll_direction(int64_t d, const Activation* acts) {
  const bool reverse = reverse_only_ || d == 1;
  const int64_t h = hidden_;
  const int64_t gh = num_gates(kind_) * h;
  const std::string dir = directions_ == 1 ? "" : (d == 0 ? "fwd." : "bwd.");
  const bool has_b = node_.has_input(3);
  const bool batch_first = time_dim_ == 1;

  // Input projection bias: Wb + Rb, except GRU's h block with linear_before_reset, whose Rb_h
  // goes inside r ⊙ (H·R_hᵀ + Rb_h).
  std::optional<Part> x_bias, r_bias;
  if (has_b && linear_before_reset_) {
    x_bias = concat(sum(slice(3, d, 0, 2 * h), slice(3, d, gh, 2 * h)), slice(3, d, 2 * h, h));
    r_bias = slice(3, d, gh + 2 * h, h);
  } else if (has_b) {
    x_bias = sum(slice(3, d, 0, gh), slice(3, d, gh, gh));
  }
  ir::Node* w_t = graph(transposed(slice(1, d, 0, gh)), dir + "W.T");
  ir::Node* x_b = x_bias ? graph(*x_bias, dir + "B") : nullptr;
  // Recurrent matrices (transposed): all gates at once, except GRU's, whose h block multiplies
  // r ⊙ H (or is scaled by r).
  ir::Node* r_t = nullptr;
  ir::Node* r_zr_t = nullptr;
  ir::Node* r_h_t = nullptr;
  if (kind_ == Kind::Gru) {
    r_zr_t = graph(transposed(slice(2, d, 0, 2 * h)), dir + "R_zr.T");
    r_h_t = graph(transposed(slice(2, d, 2 * h, h)), dir + "R_h.T");
  } else {
    r_t = graph(transposed(slice(2, d, 0, gh)), dir + "R.T");
  }
  ir::Node* r_b = r_bias ? graph(*r_bias, dir + "Rb") : nullptr;
  ir::Node *p_i = nullptr, *p_o = nullptr, *p_f = nullptr;
  if (kind_ == Kind::Lstm && node_.has_input(7)) {
    p_i = graph(slice(7, d, 0, h), dir + "P_i");
    p_o = graph(slice(7, d, h, h), dir + "P_o");
    p_f = graph(slice(7, d, 2 * h, h), dir + "P_f");
  }

  // The reverse direction of entries shorter than the sequence runs over their own steps:
  // X is gathered at index L-1-t for t < L (t itself past L), in time order of processing.
  ir::Node* x = ctx_.input(node_, 0);
  const bool gathered = reverse && !lengths_.empty();
  auto reverse_index = [&](int64_t width) {
    const int64_t batch = static_cast<int64_t>(lengths_.size());
    std::vector<int64_t> sizes = batch_first ? std::vector<int64_t>{batch, seq_, width}
                                             : std::vector<int64_t>{seq_, batch, width};
    std::vector<int64_t> index;
    index.reserve(static_cast<size_t>(batch * seq_ * width));
    for (int64_t a = 0; a < sizes[0]; ++a) {
      for (int64_t b = 0; b < sizes[1]; ++b) {
        const int64_t t = batch_first ? b : a;
        const int64_t len = lengths_[static_cast<size_t>(batch_first ? a : b)];
        for (int64_t k = 0; k < width; ++k) index.push_back(t < len ? len - 1 - t : t);
      }
    }
    return ConstTensor::from_int64(DType::Long, sizes, index);
  };
  if (gathered) {
    x = call("aten::gather", {x, time_dim_,
                              ctx_.constant_tensor(node_.source() + "." + dir + "x_index",
                                                   reverse_index(x_shape_[2].value()))});
  }

  // X·Wᵀ + b for every step: one addmm over [S*B, I] when the batch is static.
  const bool static_batch =
      x_shape_.size() == 3 && x_shape_[0].is_static() && x_shape_[1].is_static();
  ir::Node* xw_all = nullptr;
  if (static_batch) {
    const int64_t rows = x_shape_[0].value() * x_shape_[1].value();
    ir::Node* flat = view(ctx_, x, {rows, x_shape_[2].value()});
    ir::Node* p =
        x_b != nullptr ? call("aten::addmm", {x_b, flat, w_t}) : call("aten::mm", {flat, w_t});
    xw_all = view(ctx_, p, {x_shape_[0].value(), x_shape_[1].value(), gh});
  }
  auto x_proj = [&](int64_t t) {
    if (xw_all != nullptr) return call("aten::select_copy.int", {xw_all, time_dim_, t});
    ir::Node* xt = call("aten::select_copy.int", {x, time_dim_, t});
    return x_b != nullptr ? call("aten::addmm", {x_b, xt, w_t}) : call("aten::mm", {xt, w_t});
  };

  ir::Node* h_prev = initial_state(5, d);
  ir::Node* c_prev = kind_ == Kind::Lstm ? initial_state(6, d) : nullptr;
  std::vector<ir::Node*> ys(static_cast<size_t>(seq_), nullptr);
  for (int64_t s = 0; s < seq_; ++s) {
    const int64_t t = reverse && !gathered ? seq_ - 1 - s : s;  // time step read and written
    ir::Node* xw = x_proj(t);
    ir::Node* h_new = nullptr;
    ir::Node* c_new = nullptr;
    if (kind_ == Kind::Rnn) {
      h_new = activate(acts[0], plus_recurrent(xw, h_prev, r_t));
    } else if (kind_ == Kind::Gru) {
      // z, r = f(Xw_zr + H·R_zrᵀ + b_zr); h~ = g(Xw_h + (r ⊙ H)·R_hᵀ + Wb_h + Rb_h), or with
      // linear_before_reset g(Xw_h + Wb_h + r ⊙ (H·R_hᵀ + Rb_h)); H = (1 - z) ⊙ h~ + z ⊙ H_prev.
      const std::vector<ir::Node*> xs = split(xw, {2 * h, h});
      const std::vector<ir::Node*> zr =
          split(activate(acts[0], plus_recurrent(xs[0], h_prev, r_zr_t)), {h, h});
      ir::Node* h_pre = xs[1];
      if (linear_before_reset_) {
        ir::Node* rec = r_b;
        if (h_prev != nullptr) {
          rec = r_b != nullptr ? call("aten::addmm", {r_b, h_prev, r_h_t})
                               : call("aten::mm", {h_prev, r_h_t});
        }
        if (rec != nullptr) h_pre = add(h_pre, mul(zr[1], rec));
      } else if (h_prev != nullptr) {
        h_pre = call("aten::addmm", {h_pre, mul(zr[1], h_prev), r_h_t});
      }
      ir::Node* hh = activate(acts[1], h_pre);
      h_new = h_prev != nullptr ? add(hh, mul(zr[0], call("aten::sub.Tensor", {h_prev, hh, 1})))
                                : mul(call("aten::rsub.Scalar", {zr[0], 1.0, 1}), hh);
    } else {
      const std::vector<ir::Node*> g = split(plus_recurrent(xw, h_prev, r_t), {h, h, h, h});
      ir::Node* i_pre = g[0];
      ir::Node* o_pre = g[1];
      ir::Node* f_pre = g[2];
      if (p_i != nullptr && c_prev != nullptr) {
        i_pre = add(i_pre, mul(p_i, c_prev));
        f_pre = add(f_pre, mul(p_f, c_prev));
      }
      ir::Node* i = activate(acts[0], i_pre);
      ir::Node* c_hat = activate(acts[1], g[3]);
      c_new = mul(i, c_hat);
      if (c_prev != nullptr) {
        ir::Node* f =
            input_forget_ ? call("aten::rsub.Scalar", {i, 1.0, 1}) : activate(acts[0], f_pre);
        c_new = add(mul(f, c_prev), c_new);
      }
      if (p_o != nullptr) o_pre = add(o_pre, mul(p_o, c_new));
      ir::Node* o = activate(acts[0], o_pre);
      h_new = mul(o, activate(acts[2], c_new, false));
    }

    // Entries whose length is at most s: Y is 0, the state is held.
    std::vector<int64_t> done;
    bool any_done = false;
    for (int64_t l : lengths_) {
      done.push_back(s >= l ? 1 : 0);
      any_done = any_done || s >= l;
    }
    if (any_done) {
      ir::Node* mask = ctx_.constant_tensor(
          node_.source() + "." + dir + "done_" + std::to_string(s),
          ConstTensor::from_int64(DType::Bool, {static_cast<int64_t>(done.size()), 1}, done));
      if (zero_ == nullptr) {
        zero_ =
            ctx_.constant_tensor(node_.source() + ".zero",
                                 ConstTensor::from_double(ctx_.input_dtype(node_, 0), {}, {0.0}));
      }
      ir::Node* y = call("aten::where.self", {mask, zero_, h_new});
      ys[static_cast<size_t>(t)] = y;
      h_new = h_prev != nullptr ? call("aten::where.self", {mask, h_prev, h_new}) : y;
      if (c_new != nullptr) {
        c_new = call("aten::where.self", {mask, c_prev != nullptr ? c_prev : zero_, c_new});
      }
    } else {
      ys[static_cast<size_t>(t)] = h_new;
    }
    h_prev = h_new;
    c_prev = c_new;
  }

  if (node_.has_output(0)) {
    ir::Node* y = stack(ys, time_dim_);
    if (gathered) {
      y = call("aten::gather",
               {y, time_dim_,
                ctx_.constant_tensor(node_.source() + "." + dir + "y_index", reverse_index(h))});
    }
    y_.push_back(y);
  }
  y_h_.push_back(h_prev);
  y_c_.push_back(c_prev);
}

void import_rnn(ImportContext& ctx, const NodeView& node) { Unroller(ctx, node, Kind::Rnn).run(); }
void import_gru(ImportContext& ctx, const NodeView& node) { Unroller(ctx, node, Kind::Gru).run(); }
void import_lstm(ImportContext& ctx, const NodeView& node) {
  Unroller(ctx, node, Kind::Lstm).run();
}

}  // namespace

std::vector<OpEntry> recurrent_ops() {
  return {
      {"RNN", 7, 22, import_rnn},
      {"GRU", 7, 22, import_gru},
      {"LSTM", 7, 22, import_lstm},
  };
}

}  // namespace ptec::onnx_import
