#include "tools/progress.h"

#include <unistd.h>

#include <cstdio>

namespace darius::tools {

ProgressBar::ProgressBar(std::string label) : label_(std::move(label)), tty_(isatty(2) == 1) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fputc('\n', stderr);
}

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (!tty_) return;
  auto now = std::chrono::steady_clock::now();
  bool finished = total > 0 && done >= total;
  if (!finished && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  if (total == 0) {
    std::fprintf(stderr, "\r%s %llu records", label_.c_str(), static_cast<unsigned long long>(done));
  } else {
    constexpr int kWidth = 30;
    int filled = static_cast<int>(kWidth * done / total);
    std::string bar(static_cast<size_t>(filled), '#');
    bar.resize(kWidth, ' ');
    std::fprintf(stderr, "\r%s [%s] %3llu%% %llu/%llu", label_.c_str(), bar.c_str(),
                 static_cast<unsigned long long>(100 * done / total),
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
  }
  std::fflush(stderr);
}

}  // namespace darius::tools
