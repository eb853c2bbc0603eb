// conformance_runner: runs ONNX backend-test directories (Debian's libonnx-testdata) through ptec,
// each in a forked child process with a time limit, and reports PASS / FAIL / SKIP / CRASH /
// TIMEOUT per test, a summary per folder, and optionally a Markdown summary file.
//
//   conformance_runner [--root DIR] [--folders node,simple,...] [--list FILE] [--jobs N]
//                      [--timeout SECONDS] [--results FILE] [--log FILE] [--expect-pass]
//                      [--min-pass FOLDER=N]... [--quiet] [--one DIR]
//
// Exit status: 0 when nothing crashed or timed out (and, with --expect-pass, every test that ran
// passed, and with --min-pass, at least N tests of FOLDER passed); 1 otherwise; 2 for bad
// arguments.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "tests/conformance/test_case.h"

namespace ptec::conformance {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kDefaultRoot = "/usr/share/libonnx-testdata/data";
constexpr const char* kDefaultFolders = "node,pytorch-converted,pytorch-operator,simple";

struct Options {
  std::string root = kDefaultRoot;
  std::vector<std::string> folders;
  std::string list_file;
  int jobs = 1;
  double timeout_s = 10;
  std::string results_file;
  std::string log_file;
  bool expect_pass = false;
  std::map<std::string, int> min_pass;  // --min-pass FOLDER=N: fail below N passes in FOLDER
  bool quiet = false;
  std::string one;
  std::string command;
};

struct TestRef {
  std::string folder;
  std::string name;
  std::string dir;
};

struct Running {
  pid_t pid;
  int fd;
  size_t index;
  Clock::time_point deadline;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(sep, start), s.size());
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

/// Test directories: every <root>/<folder>/<name>/ with a model.onnx, or those of `list_file`
/// (lines "folder/name"; '#' starts a comment).
std::vector<TestRef> collect(const Options& opt) {
  std::vector<TestRef> tests;
  if (!opt.list_file.empty()) {
    std::ifstream in(opt.list_file);
    if (!in) {
      std::fprintf(stderr, "conformance_runner: cannot read %s\n", opt.list_file.c_str());
      std::exit(2);
    }
    std::string line;
    while (std::getline(in, line)) {
      line = line.substr(0, line.find('#'));
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
        line.pop_back();
      if (line.empty()) continue;
      const size_t slash = line.find('/');
      if (slash == std::string::npos) continue;
      tests.push_back(
          {line.substr(0, slash), line.substr(slash + 1), (fs::path(opt.root) / line).string()});
    }
    return tests;
  }
  for (const std::string& folder : opt.folders) {
    const fs::path dir = fs::path(opt.root) / folder;
    if (!fs::is_directory(dir)) continue;
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.is_directory() && fs::exists(entry.path() / "model.onnx")) {
        names.push_back(entry.path().filename().string());
      }
    }
    std::sort(names.begin(), names.end());
    for (const std::string& n : names) tests.push_back({folder, n, (dir / n).string()});
  }
  return tests;
}

/// Child side: run the test, write "<STATUS>\t<detail>" to `fd`, exit.
[[noreturn]] void child_main(const TestRef& test, int fd) {
  // The child's own output (runtime logs) would interleave with the report.
  const int null = ::open("/dev/null", O_WRONLY);
  if (null >= 0) {
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
  }
  const Outcome outcome = run_test_dir(test.dir);
  std::string msg = fmt::format("{}\t{}", to_string(outcome.status), outcome.detail);
  if (msg.size() > 2000) msg.resize(2000);  // below PIPE_BUF: one write never blocks
  ssize_t written = ::write(fd, msg.data(), msg.size());
  (void)written;
  ::_exit(0);
}

Outcome parse_message(const std::string& msg) {
  const size_t tab = msg.find('\t');
  const std::string status = msg.substr(0, tab);
  const std::string detail = tab == std::string::npos ? "" : msg.substr(tab + 1);
  for (Status s : {Status::Pass, Status::Fail, Status::Skip}) {
    if (status == to_string(s)) return {s, detail};
  }
  return {Status::Crash, "child exited without a report"};
}

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string status_line(const TestRef& t, const Outcome& o) {
  std::string line = fmt::format("{:<8} {}/{}", to_string(o.status), t.folder, t.name);
  if (!o.detail.empty()) line += ": " + o.detail;
  return line;
}

/// Runs every test, `jobs` children at a time.
std::vector<Outcome> run_all(const std::vector<TestRef>& tests, const Options& opt,
                             std::FILE* log) {
  std::vector<Outcome> outcomes(tests.size());
  std::vector<Running> running;
  size_t next = 0;
  const auto limit =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(opt.timeout_s));
  auto report = [&](size_t index) {
    const std::string line = status_line(tests[index], outcomes[index]);
    if (!opt.quiet || outcomes[index].status != Status::Pass) std::printf("%s\n", line.c_str());
    std::fflush(stdout);
    if (log != nullptr) std::fprintf(log, "%s\n", line.c_str());
  };
  while (next < tests.size() || !running.empty()) {
    while (next < tests.size() && running.size() < static_cast<size_t>(opt.jobs)) {
      int fds[2];
      if (::pipe(fds) != 0) {
        std::perror("pipe");
        std::exit(1);
      }
      std::fflush(stdout);
      const pid_t pid = ::fork();
      if (pid < 0) {
        std::perror("fork");
        std::exit(1);
      }
      if (pid == 0) {
        ::close(fds[0]);
        child_main(tests[next], fds[1]);
      }
      ::close(fds[1]);
      running.push_back({pid, fds[0], next, Clock::now() + limit});
      ++next;
    }
    bool progressed = false;
    for (size_t r = 0; r < running.size();) {
      Running& job = running[r];
      int wstatus = 0;
      const pid_t done = ::waitpid(job.pid, &wstatus, WNOHANG);
      Outcome outcome;
      bool finished = false;
      if (done == job.pid) {
        finished = true;
        if (WIFSIGNALED(wstatus)) {
          const int sig = WTERMSIG(wstatus);
          outcome = {Status::Crash, fmt::format("signal {} ({})", sig, ::strsignal(sig))};
        } else {
          outcome = parse_message(read_all(job.fd));
          if (WEXITSTATUS(wstatus) != 0 && outcome.status != Status::Crash) {
            outcome = {Status::Crash, fmt::format("exit status {}", WEXITSTATUS(wstatus))};
          }
        }
      } else if (Clock::now() > job.deadline) {
        ::kill(job.pid, SIGKILL);
        ::waitpid(job.pid, &wstatus, 0);
        finished = true;
        outcome = {Status::Timeout, fmt::format("no result after {} s", opt.timeout_s)};
      }
      if (finished) {
        ::close(job.fd);
        outcomes[job.index] = outcome;
        report(job.index);
        running.erase(running.begin() + static_cast<std::ptrdiff_t>(r));
        progressed = true;
      } else {
        ++r;
      }
    }
    if (!progressed && !running.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  }
  return outcomes;
}

struct Counts {
  int total = 0, pass = 0, fail = 0, skip = 0, crash = 0, timeout = 0;
  /// Passes whose program was specialized on some input values (test_case.h).
  int specialized = 0;
  void add(const Outcome& o) {
    const Status s = o.status;
    if (s == Status::Pass && o.detail.rfind("specialized", 0) == 0) ++specialized;
    ++total;
    switch (s) {
      case Status::Pass: ++pass; break;
      case Status::Fail: ++fail; break;
      case Status::Skip: ++skip; break;
      case Status::Crash: ++crash; break;
      case Status::Timeout: ++timeout; break;
    }
  }
  /// Tests in scope: everything not skipped.
  int in_scope() const { return total - skip; }
};

/// A failure reason with the file, node names and numbers taken out, so that equal causes group.
std::string reason_key(const std::string& detail) {
  static const std::regex kFile(R"([^ ]*model\.onnx: )");
  static const std::regex kNode(R"(node '[^']*' )");
  static const std::regex kDataSet(R"(test_data_set_\d+: )");
  static const std::regex kValues(R"(\d+ of \d+ values differ.*)");
  static const std::regex kNodes(R"( \(nodes? [^)]*\))");
  std::string key = std::regex_replace(detail, kFile, "");
  key = std::regex_replace(key, kNode, "");
  key = std::regex_replace(key, kDataSet, "");
  key = std::regex_replace(key, kValues, "values differ");
  key = std::regex_replace(key, kNodes, "");
  if (key.size() > 140) key = key.substr(0, 140);
  return key;
}

void write_results(const Options& opt, const std::vector<std::string>& folders,
                   const std::map<std::string, Counts>& per_folder, const Counts& all,
                   double seconds) {
  std::ofstream out(opt.results_file);
  if (!out) {
    std::fprintf(stderr, "conformance_runner: cannot write %s\n", opt.results_file.c_str());
    return;
  }
  char date[64];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  out << "# ONNX conformance results\n\n"
      << "Debian libonnx-testdata run through ptec (import -> to_edge -> emit -> runtime with the "
         "portable kernels), compared with the reference outputs (rtol 1e-3, atol 1e-5). "
         "Written by `tests/conformance/run_all.sh`.\n\n"
      << "- Date: " << date << "\n"
      << "- Command: `" << opt.command << "`\n"
      << fmt::format("- Wall time: {:.0f} s with {} job(s), {} s limit per test\n\n", seconds,
                     opt.jobs, opt.timeout_s)
      << "Specialized: the model takes a value the importer needs at import time (a Reshape "
         "shape, Resize scales, Trilu's k, reduction axes, ...) as a graph input; the runner "
         "bound that input to the data set's value and the program was exported for it.\n\n"
      << "| folder | tests | pass | of which specialized | fail | skip (out of scope) | crash | "
         "timeout | pass / in scope |\n"
      << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  auto row = [&](const std::string& name, const Counts& c) {
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {:.1f}% |\n", name, c.total,
                       c.pass, c.specialized, c.fail, c.skip, c.crash, c.timeout,
                       c.in_scope() ? 100.0 * c.pass / c.in_scope() : 0.0);
  };
  for (const std::string& f : folders) {
    auto it = per_folder.find(f);
    if (it != per_folder.end()) row(f, it->second);
  }
  row("**all**", all);
}

int main_impl(int argc, char** argv) {
  Options opt;
  std::string folders = kDefaultFolders;
  opt.command = "conformance_runner";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "conformance_runner: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--root")
      opt.root = value();
    else if (a == "--folders")
      folders = value();
    else if (a == "--list")
      opt.list_file = value();
    else if (a == "--jobs")
      opt.jobs = std::max(1, std::atoi(value().c_str()));
    else if (a == "--timeout")
      opt.timeout_s = std::atof(value().c_str());
    else if (a == "--results")
      opt.results_file = value();
    else if (a == "--log")
      opt.log_file = value();
    else if (a == "--expect-pass")
      opt.expect_pass = true;
    else if (a == "--min-pass") {
      const std::string v = value();
      const size_t eq = v.find('=');
      if (eq == std::string::npos || eq == 0) {
        std::fprintf(stderr, "conformance_runner: --min-pass wants FOLDER=N, got '%s'\n",
                     v.c_str());
        return 2;
      }
      opt.min_pass[v.substr(0, eq)] = std::atoi(v.c_str() + eq + 1);
    } else if (a == "--quiet")
      opt.quiet = true;
    else if (a == "--one")
      opt.one = value();
    else {
      std::fprintf(stderr, "conformance_runner: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  opt.folders = split(folders, ',');
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--results" || a == "--log") {
      ++i;
      continue;
    }
    opt.command += " " + a;
  }

  if (!opt.one.empty()) {  // in-process, for debugging one directory
    const Outcome o = run_test_dir(opt.one);
    std::printf("%s %s\n", to_string(o.status), o.detail.c_str());
    return o.status == Status::Pass || o.status == Status::Skip ? 0 : 1;
  }

  const std::vector<TestRef> tests = collect(opt);
  if (tests.empty()) {
    std::fprintf(stderr, "conformance_runner: no test directories under %s\n", opt.root.c_str());
    return 2;
  }
  std::FILE* log = opt.log_file.empty() ? nullptr : std::fopen(opt.log_file.c_str(), "w");
  const auto start = Clock::now();
  const std::vector<Outcome> outcomes = run_all(tests, opt, log);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (log != nullptr) std::fclose(log);

  std::vector<std::string> folder_order;
  std::map<std::string, Counts> per_folder;
  Counts all;
  std::map<std::string, int> reasons;
  for (size_t i = 0; i < tests.size(); ++i) {
    if (per_folder.count(tests[i].folder) == 0) folder_order.push_back(tests[i].folder);
    per_folder[tests[i].folder].add(outcomes[i]);
    all.add(outcomes[i]);
    if (outcomes[i].status == Status::Fail) ++reasons[reason_key(outcomes[i].detail)];
  }
  std::printf("\n%-20s %6s %6s %12s %6s %6s %6s %8s\n", "folder", "tests", "pass", "specialized",
              "fail", "skip", "crash", "timeout");
  auto print_row = [](const std::string& name, const Counts& c) {
    std::printf("%-20s %6d %6d %12d %6d %6d %6d %8d\n", name.c_str(), c.total, c.pass,
                c.specialized, c.fail, c.skip, c.crash, c.timeout);
  };
  for (const std::string& f : folder_order) print_row(f, per_folder[f]);
  print_row("all", all);
  std::printf("%.1f s\n", seconds);
  if (!reasons.empty()) {
    std::vector<std::pair<int, std::string>> sorted;
    for (const auto& [k, n] : reasons) sorted.emplace_back(n, k);
    std::sort(sorted.rbegin(), sorted.rend());
    std::printf("\nmost frequent failure reasons:\n");
    for (size_t i = 0; i < sorted.size() && i < 25; ++i) {
      std::printf("%5d  %s\n", sorted[i].first, sorted[i].second.c_str());
    }
  }
  if (!opt.results_file.empty()) write_results(opt, folder_order, per_folder, all, seconds);

  bool below_minimum = false;
  for (const auto& [folder, minimum] : opt.min_pass) {
    const int passed = per_folder.count(folder) != 0 ? per_folder[folder].pass : 0;
    if (passed < minimum) {
      std::printf("\n%s: %d tests pass, fewer than the required %d\n", folder.c_str(), passed,
                  minimum);
      below_minimum = true;
    }
  }
  const bool broken = all.crash + all.timeout > 0;
  const bool not_passing = opt.expect_pass && all.fail > 0;
  return broken || not_passing || below_minimum ? 1 : 0;
}

}  // namespace
}  // namespace ptec::conformance

int main(int argc, char** argv) { return ptec::conformance::main_impl(argc, argv); }
