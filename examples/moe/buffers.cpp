#include "buffers.hpp"

namespace moe {
namespace {
std::size_t sz(int n) { return static_cast<std::size_t>(n); }
}  // namespace

MoeBuffers::MoeBuffers(const MoeShape& s)
    : send_counts(sz(s.npes)),
      recv_counts(sz(s.npes)),
      offsets(sz(s.npes)),
      offset_sig(sz(s.npes)),
      data_sig(sz(s.npes)),
      combine_sig(sz(s.npes)),
      recv_x(s.recv_capacity() * sz(s.hidden)),
      recv_meta(s.recv_capacity()),
      combined(sz(s.tokens) * sz(s.topk) * sz(s.hidden)),
      region_off(sz(s.npes)),
      region_cnt(sz(s.npes)),
      y(s.recv_capacity() * sz(s.hidden)),
      out(sz(s.tokens) * sz(s.hidden)) {}

bool MoeBuffers::ok() const {
  return send_counts && recv_counts && offsets && offset_sig && data_sig && combine_sig && recv_x && recv_meta &&
         combined;
}

MoeLayer MoeBuffers::prepare(const MoeShape& s, int epoch, const std::vector<float>& x,
                             const std::vector<float>& weight, const DispatchPlan& plan) {
  for (int d = 0; d < s.npes; ++d) send_counts.get()[d] = plan.count(d);
  MoeLayer l;
  l.tokens = s.tokens;
  l.hidden = s.hidden;
  l.topk = s.topk;
  l.experts_per_pe = s.experts_per_pe;
  l.epoch = static_cast<std::uint64_t>(epoch);
  l.x = x.data();
  l.weight = weight.data();
  l.send_meta = plan.meta.data();
  l.send_first = plan.first.data();
  l.send_counts = send_counts.get();
  l.recv_counts = recv_counts.get();
  l.offsets = offsets.get();
  l.offset_sig = offset_sig.get();
  l.data_sig = data_sig.get();
  l.combine_sig = combine_sig.get();
  l.recv_x = recv_x.get();
  l.recv_meta = recv_meta.get();
  l.combined = combined.get();
  l.region_off = region_off.data();
  l.region_cnt = region_cnt.data();
  l.y = y.data();
  l.out = out.data();
  return l;
}

}  // namespace moe
