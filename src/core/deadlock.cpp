// Deadlocks between waits (deadlock.hpp): publishing a long wait, the checking PE's looks, and
// the report.
#include "core/deadlock.hpp"

#include <time.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "base/log.hpp"
#include "core/ops.hpp"

namespace shmem::deadlock {

namespace {

std::atomic<std::uint32_t> g_waits{0};  // counted waits begun in this process (their numbers)
std::atomic<bool> g_helpers{false};     // helpers_started()

// This thread's current long wait: when it began, whether it counts, its number and looks.
struct Mine {
  double started = -1;
  bool counted = false;
  std::uint32_t number = 0, looks = 0;
};
thread_local Mine t_mine;
thread_local rules::Watch t_watch;    // the checking PE's looks
thread_local bool t_in_hook = false;  // the checks' own reads through the transport may wait too

constexpr const char* kReads = "the deadlock check (SHMEM_COLL_CHECK_AFTER)";

std::atomic_ref<std::uint64_t> word(std::uint64_t& w) noexcept { return std::atomic_ref<std::uint64_t>(w); }

std::uint64_t wall_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u + static_cast<std::uint64_t>(ts.tv_nsec);
}

WaitLine* line_at(Runtime& r, int pe) noexcept { return reinterpret_cast<WaitLine*>(r.heap_at(pe, kWaitLineOffset)); }

std::uint64_t others_now(const Runtime& r) noexcept {
  std::uint64_t bits = 0;
  if (r.thread_level() != 0) bits |= kThreads;  // above SHMEM_THREAD_SINGLE
  if (g_helpers.load(std::memory_order_relaxed)) bits |= kHelpers;
  if (r.gpu() != nullptr) bits |= kGpu;
  return bits;
}

// PE pe's line as the check needs it: through the mapping, or the transport for another host.
rules::Seen read_seen(Runtime& r, int pe) {
  rules::Seen s;
  std::uint64_t beat_others[2] = {0, 0}, finalizing = 0;
  if (WaitLine* l = line_at(r, pe)) {
    auto* call = reinterpret_cast<coll_check::CallLine*>(r.heap_at(pe, coll_check::kCallLineOffset));
    finalizing = word(call->finalizing).load(std::memory_order_acquire);
    beat_others[0] = word(l->beat).load(std::memory_order_acquire);
    beat_others[1] = word(l->others).load(std::memory_order_relaxed);
  } else {
    char* const mine = r.heap_at(r.my_pe(), 0);
    core::get(r.default_ctx(), &finalizing,
              mine + coll_check::kCallLineOffset + offsetof(coll_check::CallLine, finalizing), sizeof finalizing, pe,
              kReads);
    core::get(r.default_ctx(), beat_others, mine + kWaitLineOffset + offsetof(WaitLine, beat), sizeof beat_others, pe,
              kReads);
  }
  static_assert(offsetof(WaitLine, others) == offsetof(WaitLine, beat) + sizeof(std::uint64_t));
  s.finalizing = finalizing != 0;
  s.beat = beat_others[0];
  s.others = beat_others[1] != 0;
  return s;
}

void write_text(WaitLine* l, const std::string& s) noexcept {
  char bytes[sizeof l->text] = {};
  const std::size_t n = s.size() < sizeof bytes - 1 ? s.size() : sizeof bytes - 1;
  std::memcpy(bytes, s.data(), n);
  if (n < s.size()) std::memcpy(bytes + n - 3, "...", 3);
  for (int i = 0; i < kTextWords; ++i) {
    std::uint64_t w = 0;
    std::memcpy(&w, bytes + i * 8, 8);
    word(l->text[i]).store(w, std::memory_order_relaxed);
  }
}

// PE pe's wait as published: its text, when it began and its latest beat (empty text when none,
// or when the PE moved to another wait while it was read).
struct Published {
  std::string text;
  std::uint64_t beat = 0, beat_at = 0, since = 0;
};
Published read_published(Runtime& r, int pe) {
  WaitLine copy;
  WaitLine* l = line_at(r, pe);
  if (l == nullptr) {  // another host: one read of the whole line
    core::get(r.default_ctx(), &copy, r.heap_at(r.my_pe(), kWaitLineOffset), sizeof copy, pe, kReads);
    l = &copy;
  }
  Published p;
  p.beat = word(l->beat).load(std::memory_order_acquire);
  p.beat_at = word(l->beat_at).load(std::memory_order_relaxed);
  p.since = word(l->since).load(std::memory_order_relaxed);
  char bytes[sizeof l->text + 1] = {};
  for (int i = 0; i < kTextWords; ++i) {
    const std::uint64_t w = word(l->text[i]).load(std::memory_order_relaxed);
    std::memcpy(bytes + i * 8, &w, 8);
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  // The same wait before and after (its looks may have gone up meanwhile): the text is its own.
  if (p.beat != 0 && word(l->beat).load(std::memory_order_relaxed) >> 32 == p.beat >> 32) p.text = bytes;
  return p;
}

// "PE 0 is in X; PEs 1-3 are in Y" for texts[pe] ("in X"), consecutive PEs with the same text
// together; PEs whose text is empty are left out.
std::string group(const std::vector<std::string>& texts) {
  std::string out;
  int groups = 0;
  for (std::size_t a = 0; a < texts.size();) {
    std::size_t b = a;
    while (b + 1 < texts.size() && texts[b + 1] == texts[a]) ++b;
    if (!texts[a].empty()) {
      if (groups++ == 16) {
        out += "; and PEs " + std::to_string(a) + "-" + std::to_string(texts.size() - 1) + " elsewhere";
        break;
      }
      if (!out.empty()) out += "; ";
      out +=
          a == b ? "PE " + std::to_string(a) + " is " : "PEs " + std::to_string(a) + "-" + std::to_string(b) + " are ";
      out += texts[a];
    }
    a = b + 1;
  }
  return out;
}

// This PE's wait, once more: counted or not (decided when the wait first gets here), and if
// counted, its beat. Returns whether it counts.
bool publish(Runtime& r, double started, const WaitWhat* what) {
  WaitLine* const l = line_at(r, r.my_pe());
  if (started != t_mine.started) {
    t_mine = Mine{started, false, 0, 0};
    std::string text = what != nullptr ? (*what)() : coll_check::where_is(r, r.my_pe()).call;
    if (text.empty()) return false;  // the beat of an earlier wait stays: it no longer goes up
    t_mine.counted = true;
    t_mine.number = g_waits.fetch_add(1, std::memory_order_relaxed) + 1;
    word(l->beat).store(0, std::memory_order_relaxed);  // the text is being written
    std::atomic_thread_fence(std::memory_order_release);
    write_text(l, text);
    const double waited = wait_clock() - started;  // both wait_clock's (CLOCK_MONOTONIC)
    word(l->since).store(wall_ns() - static_cast<std::uint64_t>(waited > 0 ? waited * 1e9 : 0),
                         std::memory_order_relaxed);
  }
  if (!t_mine.counted) return false;
  // Every operation this PE has issued to another host is complete there before its beat says it
  // waits (those to its own host are complete when their calls return). Where something else may
  // write, no check can conclude: no quiet.
  const std::uint64_t others = others_now(r);
  if (others == 0 && r.remote() != nullptr) core::quiet(r.default_ctx());
  ++t_mine.looks;
  word(l->others).store(others, std::memory_order_relaxed);
  word(l->beat_at).store(wall_ns(), std::memory_order_relaxed);
  word(l->beat).store(static_cast<std::uint64_t>(t_mine.number) << 32 | t_mine.looks, std::memory_order_release);
  return true;
}

// Where each PE of a deadlock waits: "PE 0 is in X; PEs 1-3 are in Y".
std::string where_each(Runtime& r, const std::vector<rules::Seen>& seen) {
  std::vector<std::string> text(seen.size());
  for (std::size_t pe = 0; pe < seen.size(); ++pe) {
    if (seen[pe].finalizing) {
      text[pe] = "in finalize";
    } else {
      const std::string t = read_published(r, static_cast<int>(pe)).text;
      text[pe] = "in " + (t.empty() ? std::string("a wait") : t);
    }
  }
  return group(text);
}

// The checking PE (the lowest-numbered one not in finalize) looks at every PE.
void check(Runtime& r) {
  const int n = r.n_pes();
  std::vector<rules::Seen> now(static_cast<std::size_t>(n));
  for (int pe = 0; pe < n; ++pe) {
    if (line_at(r, pe) == nullptr && r.remote() == nullptr) return;  // cannot be read
    rules::Seen& s = now[static_cast<std::size_t>(pe)] = read_seen(r, pe);
    if (pe < r.my_pe() && !s.finalizing) return;  // that PE checks
  }
  if (t_watch.look(now) != rules::Watch::Verdict::kDeadlock) return;
  const double after = r.wait_policy().long_wait_after_s;
  log::write(log::Level::kFatal, "wait",
             "deadlock: every PE is waiting and none of them can wake another (found by checks %g s apart, "
             "SHMEM_COLL_CHECK_AFTER=%g, between which every PE looked again and still waited): %s; a PE waits for "
             "a value that no running PE will write, or for a PE that waits itself",
             after, after, where_each(r, now).c_str());
  r.abort_job(1);
}

}  // namespace

namespace rules {

Watch::Verdict Watch::look(const std::vector<Seen>& now) {
  for (const Seen& s : now) {
    if (s.others || (!s.finalizing && s.beat == 0)) {
      first_.clear();
      return Verdict::kNo;
    }
  }
  if (first_.size() != now.size()) {
    first_ = now;
    return Verdict::kMaybe;
  }
  bool pending = false;
  for (std::size_t pe = 0; pe < now.size(); ++pe) {
    const Seen &a = first_[pe], &b = now[pe];
    if (a.finalizing) continue;  // it stores nothing again
    if (b.finalizing || b.beat >> 32 != a.beat >> 32) {
      first_ = now;  // it has left its wait: from here on
      return Verdict::kMaybe;
    }
    if ((b.beat & 0xffffffffu) < (a.beat & 0xffffffffu) + 2) pending = true;
  }
  return pending ? Verdict::kMaybe : Verdict::kDeadlock;
}

}  // namespace rules

void on_long_wait(void* arg, double started, const WaitWhat* what) noexcept {
  if (t_in_hook) return;
  t_in_hook = true;
  Runtime& r = *static_cast<Runtime*>(arg);
  coll_check::on_long_wait(r);
  try {
    if (publish(r, started, what)) check(r);
  } catch (const std::exception& e) {  // a string that could not be made: no check this time
    SHMEM_DEBUG_LOG("wait", "deadlock check skipped: %s", e.what());
  }
  t_in_hook = false;
}

void on_long_wait_end(void* arg) noexcept {
  if (t_in_hook || !t_mine.counted) return;
  Runtime& r = *static_cast<Runtime*>(arg);
  word(line_at(r, r.my_pe())->beat_at).store(0, std::memory_order_relaxed);
}

void on_timeout(void* arg) noexcept {
  if (t_in_hook) return;
  t_in_hook = true;
  Runtime& r = *static_cast<Runtime*>(arg);
  try {
    if (r.world_team() == nullptr) throw std::runtime_error("in init: the other PEs' lines are not reachable yet");
    const double after = r.wait_policy().long_wait_after_s;
    const std::uint64_t now = wall_ns();
    std::vector<std::string> where(static_cast<std::size_t>(r.n_pes()));
    for (int pe = 0; pe < r.n_pes(); ++pe) {
      if (pe == r.my_pe() || (line_at(r, pe) == nullptr && r.remote() == nullptr)) continue;
      std::string& w = where[static_cast<std::size_t>(pe)];
      const coll_check::Whereabouts at = coll_check::where_is(r, pe);
      if (at.finalizing) {
        w = "in finalize";
        continue;
      }
      // A wait that still beats (its latest beat within two periods): what it waits for.
      const Published p = after > 0 ? read_published(r, pe) : Published{};
      const double beat_age = (static_cast<double>(now) - static_cast<double>(p.beat_at)) * 1e-9;
      if (!p.text.empty() && p.beat_at != 0 && beat_age < 2 * after + 0.5) {
        char since[48];
        std::snprintf(since, sizeof since, " (for %.0f s)",
                      (static_cast<double>(now) - static_cast<double>(p.since)) * 1e-9);
        w = "in " + p.text + since;
      } else if (!at.call.empty()) {
        w = "in " + at.call;
      } else {
        w = "in no collective call, nor in a wait of more than SHMEM_COLL_CHECK_AFTER that says what it waits for "
            "(it computes, or waits elsewhere)";
      }
    }
    log::write(log::Level::kError, "wait", "PE %d waited past SHMEM_WAIT_TIMEOUT=%g; where the other PEs are: %s",
               r.my_pe(), r.wait_policy().timeout_s, r.n_pes() == 1 ? "(none)" : group(where).c_str());
  } catch (const std::exception& e) {
    SHMEM_DEBUG_LOG("wait", "where the PEs are: not known (%s)", e.what());
  }
  t_in_hook = false;
}

void attach(WaitPolicy& pol, Runtime* r, double after_s) noexcept {
  coll_check::attach(r);
  pol.timed_out = &on_timeout;
  pol.timed_out_arg = r;
  if (after_s <= 0) return;
  pol.long_wait = &on_long_wait;
  pol.long_wait_end = &on_long_wait_end;
  pol.long_wait_arg = r;
  pol.long_wait_after_s = after_s;
}

void helpers_started() noexcept { g_helpers.store(true, std::memory_order_relaxed); }

}  // namespace shmem::deadlock
