// Lexical path helpers: split, join and normalise '/'-separated paths without touching the
// filesystem. They exist because atomic writes, directory fsyncs and the fault-injecting Env
// all need "the directory this entry lives in" and must agree on how it is spelled.
//
// Lexical means symlinks are not resolved: "a/link/.." becomes "a", which is what the kernel
// would do only if "link" is not a symlink. The store never puts symlinks inside a partition.
//
// Ownership: plain values in, plain values out. Thread-safety: pure functions, except that
// absolutePath() reads the process's current directory.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/base/result.h"

namespace darius::io {

// The directory that holds `path`'s last component: "a/b" -> "a", "/a" -> "/", "a" -> ".",
// "a/b/" -> "a". The result is always usable as an argument to open(2).
std::string parentDir(std::string_view path);

// The last component: "a/b" -> "b", "a/b/" -> "b", "/" -> "/", "" -> "".
std::string baseName(std::string_view path);

// "a" + "b" -> "a/b"; an absolute `rel` wins; an empty side yields the other.
std::string joinPath(std::string_view dir, std::string_view rel);

// Removes "//", "." and "dir/.." lexically; keeps a leading '/'. "" and "." give ".".
// A ".." that would climb above the root of an absolute path is dropped ("/.." -> "/").
std::string normalizePath(std::string_view path);

// normalizePath() of the path made absolute against the current directory.
base::Result<std::string> absolutePath(std::string_view path);

// The non-empty components of a path: "/a//b/" -> {"a", "b"}.
std::vector<std::string> splitPath(std::string_view path);

}  // namespace darius::io
