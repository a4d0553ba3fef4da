// Thread priority: "interactive work first" (issue 23). Deliveries and background indexing can
// wait (an MTA retries, SEARCH catches the index up), a person at an IMAP or POP3 client
// cannot, so the threads that do that deferrable work run at a higher nice value than the
// network threads that run the sessions: when the cores are busy, the kernel's scheduler gives
// the sessions most of them, and the deferrable work takes what is left over (a thread at nice
// 10 weighs about a tenth of one at nice 0 under CFS, so it slows down but never starves).
//
// Linux keeps a nice value per thread (setpriority on the thread id), and a thread inherits
// its creator's, so threads that a niced thread starts (a fan-out of appends) are niced too.
// A thread is never made less nice than it is: an unprivileged process could not undo it.
//
// Thread-safety: lowerThisThreadPriority acts on the calling thread only; lowerPoolPriority
// must be called once, right after the pool is made and before any other work is posted to it.
#pragma once

#include <asio/thread_pool.hpp>

#include "lib/base/status.h"

namespace darius::net {

// Raises the calling thread's nice value to `nice` (0..19) if it is lower; 0 changes nothing.
base::Status lowerThisThreadPriority(int nice);

// The same for each of the `threads` threads of `pool`: one task per thread, held at a latch
// until every thread has taken one, so that no thread takes two. Returns the first failure.
base::Status lowerPoolPriority(asio::thread_pool& pool, unsigned threads, int nice);

// The calling thread's nice value.
int threadNice();

}  // namespace darius::net
