// ptec: export ONNX models to ExecuTorch programs, run them, and inspect them.

#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "ir/exception.h"
#include "tools/ptec/commands.h"
#include "tools/ptec/recipes.h"

int main(int argc, char** argv) {
  CLI::App app{"ptec: export models to ExecuTorch .pte programs and run them"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "ptec 0.1.0");

  ptec::cli::ExportArgs export_args;
  CLI::App* export_cmd = app.add_subcommand("export", "Export an ONNX model to a .pte program");
  export_cmd->add_option(
      "model", export_args.model,
      "ONNX model (.onnx) or engine-bearing program archive (.ptep, ptec compile), method "
      "forward");
  export_cmd->add_option("-o,--output", export_args.output, "Output .pte path")->required();
  export_cmd
      ->add_option("--recipe", export_args.recipe,
                   "Export recipe: cpu_fp32 (PtecCpuBackend + optimized kernels), "
                   "portable (reference kernels only), cpu_int8_static_per_channel, "
                   "cpu_int8_static_per_tensor, cpu_int8_dynamic_per_channel, "
                   "cpu_int4_weight_per_group, engine_cpu_fp32 (precompiled CPU engines, "
                   "PtecEngineBackend) or a target recipe (ptec recipes lists them)")
      ->capture_default_str();
  export_cmd->add_option("--recipe-arg", export_args.recipe_args,
                         "A kwarg of the recipe: KEY=VALUE, e.g. group_size=64 (repeatable)");
  export_cmd->add_option("--calibration", export_args.calibration_dir,
                         "Calibration inputs of a quantizing recipe: DIR with one subdirectory "
                         "per input set holding input_0.pb, ... (onnx.TensorProto) or .npy "
                         "files, as ptec run --inputs reads (default: one set of ones)");
  export_cmd->add_flag("--json", export_args.json, "Print a JSON summary");
  export_cmd->add_option("--method", export_args.methods,
                         "Add method NAME from an ONNX model or a program archive: NAME=MODEL.onnx "
                         "or NAME=MODEL.ptep (repeatable)");
  export_cmd->add_option("--constant", export_args.constants,
                         "Add a constant method: NAME=VALUE (int, double, true/false or string; "
                         "repeatable)");
  export_cmd->add_flag("--external-data", export_args.external_data,
                       "Store the weights in a .ptd beside the .pte");
  export_cmd->add_option("--dynamic", export_args.dynamic,
                         "Make an input dim dynamic: INPUT:AXIS=MIN..MAX, or "
                         "INPUT:AXIS=SYMBOL:MIN..MAX to share SYMBOL across inputs; a trailing "
                         ":MULTIPLE takes only multiples of it, e.g. images:2=h:64..640:32 "
                         "(repeatable)");
  export_cmd->add_option("--dim", export_args.dims,
                         "Size of the model's symbolic dims named SYMBOL (ONNX dim_param, e.g. "
                         "batch or seq; default 1): SYMBOL=VALUE (repeatable)");
  export_cmd->add_option("--input-shape", export_args.input_shapes,
                         "Shape of an input with symbolic dims: INPUT=D0xD1x..., e.g. "
                         "input=1x3x224x224 (repeatable)");
  export_cmd->add_option("--etrecord", export_args.etrecord_path,
                         "Also write the ETRecord (the programs and the instruction -> node maps "
                         "the devtools need) to this file");

  ptec::cli::CompileArgs compile_args;
  CLI::App* compile_cmd = app.add_subcommand(
      "compile", "Compile an ONNX model into an engine-bearing program archive (.ptep)");
  compile_cmd->add_option("model", compile_args.model, "ONNX model (.onnx)")->required();
  compile_cmd->add_option("-o,--output", compile_args.output, "Output .ptep path")->required();
  compile_cmd->add_option("--dynamic", compile_args.dynamic,
                          "Make an input dim dynamic (an engine profile): INPUT:AXIS=MIN..MAX or "
                          "INPUT:AXIS=SYMBOL:MIN..MAX[:MULTIPLE] (repeatable)");
  compile_cmd->add_option("--dim", compile_args.dims,
                          "Size of the model's symbolic dims named SYMBOL (ONNX dim_param; "
                          "default 1): SYMBOL=VALUE (repeatable)");
  compile_cmd->add_option("--input-shape", compile_args.input_shapes,
                          "Shape of an input with symbolic dims: INPUT=D0xD1x... (repeatable)");
  compile_cmd->add_option("--points", compile_args.points,
                          "Sizes of a dynamic dim to build plans for, which are the sizes the "
                          "engines run at (default: the range's min, max and the powers of two "
                          "between): SYMBOL=V1,V2,... (repeatable)");
  compile_cmd->add_flag("--no-autotune", compile_args.no_autotune,
                        "Do not time candidate kernels on this machine");
  compile_cmd
      ->add_option("--threads", compile_args.threads,
                   "Threads the engines are tuned for (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  compile_cmd->add_flag("--json", compile_args.json, "Print a JSON summary");

  ptec::cli::RunArgs run_args;
  CLI::App* run_cmd = app.add_subcommand("run", "Run a method of a .pte program");
  run_cmd->add_option("program", run_args.program, ".pte program")->required();
  run_cmd->add_option("--method", run_args.method, "Method to run")->capture_default_str();
  run_cmd->add_option("--inputs", run_args.inputs_dir,
                      "Directory with input_K.pb (onnx.TensorProto) or .npy files; default: ones");
  run_cmd->add_option("--outputs-dir", run_args.outputs_dir, "Write output_K.pb files here");
  run_cmd->add_option("--data", run_args.data_path, ".ptd file with external tensor data");
  run_cmd->add_option("--iterations", run_args.iterations, "Number of timed runs")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  run_cmd
      ->add_option("--threads", run_args.threads,
                   "Threads for kernels and delegates (default: one per core)")
      ->check(CLI::NonNegativeNumber);
  run_cmd->add_flag("--json", run_args.json, "Print one JSON object");
  run_cmd->add_option("--etdump", run_args.etdump_path,
                      "Write the runtime's profiling events (ETDump, .etdp) to this file");
  run_cmd->add_option("--debug-buffer", run_args.debug_buffer_path,
                      "Also record every kernel's output (needs --etdump); tensor bytes go to "
                      "this file");

  bool recipes_json = false;
  CLI::App* recipes_cmd =
      app.add_subcommand("recipes", "List the export recipes with their descriptions and kwargs");
  recipes_cmd->add_flag("--json", recipes_json, "Print one JSON object");

  ptec::cli::InfoArgs info_args;
  CLI::App* info_cmd = app.add_subcommand("info", "Describe a .pte program");
  info_cmd->add_option("program", info_args.program, ".pte program")->required();
  info_cmd->add_flag("--json", info_args.json, "Print one JSON object");

  ptec::cli::InspectArgs inspect_args;
  CLI::App* inspect_cmd = app.add_subcommand(
      "inspect",
      "Join a run's ETDump with the export's ETRecord: per-event timings by op type "
      "and ONNX node");
  inspect_cmd
      ->add_option("--etrecord", inspect_args.etrecord_path, "ETRecord (ptec export --etrecord)")
      ->required();
  inspect_cmd
      ->add_option("--etdump", inspect_args.etdump_paths,
                   "ETDump (ptec run --etdump); repeatable, e.g. one per method")
      ->required();
  inspect_cmd->add_option("--debug-buffer", inspect_args.debug_buffer_paths,
                          "Debug buffer (ptec run --debug-buffer)");
  inspect_cmd->add_flag("--json", inspect_args.json, "Print one JSON object");
  inspect_cmd->add_option("--tsv", inspect_args.tsv_path, "Also write a table of the events here");
  CLI::Option* gap_opt = inspect_cmd->add_flag(
      "--numeric-gap", inspect_args.numeric_gap,
      "Compare the logged outputs (--debug-buffer) with a reference run's, per debug handle");
  inspect_cmd->add_option("--metric", inspect_args.metric, "Numeric gap metric")
      ->check(CLI::IsMember({"mse", "l1", "snr"}))
      ->capture_default_str();
  inspect_cmd
      ->add_option("--reference-etrecord", inspect_args.reference_etrecord_path,
                   "ETRecord of the reference (e.g. exported with --recipe portable)")
      ->needs(gap_opt);
  inspect_cmd
      ->add_option("--reference-etdump", inspect_args.reference_etdump_paths,
                   "ETDump of the reference run (repeatable)")
      ->needs(gap_opt);
  inspect_cmd
      ->add_option("--reference-debug-buffer", inspect_args.reference_debug_buffer_path,
                   "Debug buffer of the reference run")
      ->needs(gap_opt);
  inspect_cmd
      ->add_option("--inputs", inspect_args.inputs,
                   "[METHOD=]DIR: the inputs the run used (input_K.pb or .npy), for the reference "
                   "run on the portable kernels when no --reference-* run is given; default: the "
                   "ETRecord's representative inputs, else ones")
      ->needs(gap_opt);
  inspect_cmd
      ->add_option("--program", inspect_args.program_path,
                   "The exported .pte: the weights of the in-process reference run (an ETRecord "
                   "holds them by reference)")
      ->needs(gap_opt);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  try {
    if (*export_cmd) return ptec::cli::run_export(export_args);
    if (*run_cmd) return ptec::cli::run_run(run_args);
    if (*compile_cmd) return ptec::cli::run_compile(compile_args);
    if (*info_cmd) return ptec::cli::run_info(info_args);
    if (*recipes_cmd) return ptec::cli::run_recipes(recipes_json);
    if (*inspect_cmd) return ptec::cli::run_inspect(inspect_args);
  } catch (const ptec::Exception& e) {
    std::fprintf(stderr, "ptec: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ptec: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
