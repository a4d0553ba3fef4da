#include "lib/io/path.h"

#include <unistd.h>

#include <cerrno>

namespace darius::io {

std::vector<std::string> splitPath(std::string_view path) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i < path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    if (j > i) parts.emplace_back(path.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

std::string normalizePath(std::string_view path) {
  const bool absolute = !path.empty() && path.front() == '/';
  std::vector<std::string> out;
  for (std::string& part : splitPath(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (!out.empty() && out.back() != "..") {
        out.pop_back();
        continue;
      }
      if (absolute) continue;  // "/.." is "/"
    }
    out.push_back(std::move(part));
  }
  std::string result = absolute ? "/" : "";
  for (size_t i = 0; i < out.size(); ++i) {
    if (i > 0) result += '/';
    result += out[i];
  }
  if (result.empty()) result = ".";
  return result;
}

std::string parentDir(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return ".";
  // Collapse a run of slashes before the last component ("a//b" -> "a").
  while (slash > 0 && path[slash - 1] == '/') --slash;
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

std::string baseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (path == "/") return "/";
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return std::string(path);
  return std::string(path.substr(slash + 1));
}

std::string joinPath(std::string_view dir, std::string_view rel) {
  if (dir.empty() || (!rel.empty() && rel.front() == '/')) return std::string(rel);
  if (rel.empty()) return std::string(dir);
  std::string result(dir);
  if (result.back() != '/') result += '/';
  result += rel;
  return result;
}

base::Result<std::string> absolutePath(std::string_view path) {
  if (!path.empty() && path.front() == '/') return normalizePath(path);
  std::string cwd(256, '\0');
  while (::getcwd(cwd.data(), cwd.size()) == nullptr) {
    if (errno != ERANGE) return base::Status::fromErrno(errno, "getcwd");
    cwd.resize(cwd.size() * 2);
  }
  cwd.resize(cwd.find('\0'));
  return normalizePath(joinPath(cwd, path));
}

}  // namespace darius::io
