// A one-line progress bar on standard error for long CLI runs, drawn only when standard error
// is a terminal (scripts and CI logs get nothing), redrawn at most ten times a second.
//
// Thread-safety: single-threaded CLI code.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace darius::tools {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();  // ends the line if anything was drawn
  void update(uint64_t done, uint64_t total);

 private:
  std::string label_;
  bool tty_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace darius::tools
