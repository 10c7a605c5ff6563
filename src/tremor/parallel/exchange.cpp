#include "tremor/parallel/exchange.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "tremor/backend/forall.hpp"
#include "tremor/backend/memory.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/parallel/node_width.hpp"

namespace tremor::parallel {

Strategy parse_strategy(std::string_view name) { return parse_named(name, strategy_names, "exchange"); }

std::string_view to_string(Strategy strategy) { return name_of(strategy, strategy_names); }

SharedSlots::SharedSlots(const partition::Decomposition& decomposition, int domain) {
  // slot_of[node]: the node's place among the model's shared nodes (multiplicity > 1), in model order.
  std::vector<Index> slot_of(decomposition.node_multiplicity.size(), -1);
  for (std::size_t node = 0; node < slot_of.size(); ++node)
    if (decomposition.node_multiplicity[node] > 1) slot_of[node] = n_slots++;
  const partition::Subdomain& mine = decomposition.domains.at(static_cast<std::size_t>(domain));
  for (std::size_t k = static_cast<std::size_t>(mine.n_owned); k < mine.nodes.size(); ++k) {
    const Index slot = slot_of[static_cast<std::size_t>(mine.nodes[k])];
    TREMOR_CHECK(slot >= 0, "subdomain ", domain, "'s shared node ", mine.nodes[k], " is held by no other subdomain");
    slots.push_back(slot);
  }
}

template <class Real>
InProcessExchange<Real>::InProcessExchange(const Exec& exec, const partition::Decomposition& decomposition, int dim)
    : exec_(exec), dim_(dim) {
  const std::size_t n = decomposition.domains.size();
  // Each shared node's copies (subdomain order, as the domains are visited): their staging rows.
  std::map<Index, std::vector<Index>> copies;
  for (std::size_t s = 0; s < n; ++s) {
    const partition::Subdomain& domain = decomposition.domains[s];
    n_local_.push_back(static_cast<Index>(domain.nodes.size()));
    n_owned_.push_back(domain.n_owned);
    base_.push_back(total_);
    for (Index j = 0; j < domain.n_shared(); ++j)
      copies[domain.nodes[static_cast<std::size_t>(domain.n_owned + j)]].push_back(total_ + j);
    total_ += domain.n_shared();
  }
  for (std::size_t s = 0; s < n; ++s) {
    const partition::Subdomain& domain = decomposition.domains[s];
    std::vector<Index> offsets{0}, sources;
    for (Index j = 0; j < domain.n_shared(); ++j) {
      const std::vector<Index>& rows = copies.at(domain.nodes[static_cast<std::size_t>(domain.n_owned + j)]);
      TREMOR_CHECK(rows.size() >= 2, "subdomain ", s, "'s shared node ", domain.nodes[static_cast<std::size_t>(domain.n_owned + j)],
                   " is held by no other subdomain");
      sources.insert(sources.end(), rows.begin(), rows.end());
      offsets.push_back(static_cast<Index>(sources.size()));
    }
    offsets_.emplace_back(exec, std::span<const Index>(offsets));
    sources_.emplace_back(exec, std::span<const Index>(sources));
  }
  staged_forces_ = DeviceArray<Real>(exec, total_ * dim);
  staged_mass_ = DeviceArray<double>(exec, total_ * dim);
}

namespace {

// to[k] = from[k] for k < n.
template <class T>
void copy_values(const Exec& exec, Index n, const T* from, T* to) {
  forall(exec, n, [=] TREMOR_LAMBDA(Index k) { to[k] = from[k]; });
}

// tail[j dim + c] = the sum of staged[sources[e] dim + c] over e in [offsets[j], offsets[j + 1]),
// in that order, for the n shared nodes j of one subdomain.
template <class T>
void sum_copies(const Exec& exec, Index n, Index dim, const Index* offsets, const Index* sources, const T* staged,
                T* tail) {
  forall(exec, n * dim, [=] TREMOR_LAMBDA(Index k) {
    const Index j = k / dim, c = k % dim;
    T total = T(0);
    for (Index e = offsets[j]; e < offsets[j + 1]; ++e) total += staged[sources[e] * dim + c];
    tail[k] = total;
  });
}

// The values per node of the subdomains' vectors (node_width), the first subdomain's with nodes.
template <class T>
Index width_of(std::span<const View<T>> values, const std::vector<Index>& n_local, int dim) {
  for (std::size_t s = 0; s < values.size(); ++s)
    if (n_local[s] > 0) return node_width(values[s].size, n_local[s], dim, "a subdomain's vector");
  return dim;
}

}  // namespace

template <class Real>
template <class T>
void InProcessExchange<Real>::sum(std::span<const View<T>> values, DeviceArray<T>& staging) {
  TREMOR_CHECK(values.size() == n_local_.size(), "an exchange of ", n_local_.size(), " subdomains was given ",
               values.size(), " vectors");
  const Index dim = width_of(values, n_local_, dim_);
  if (staging.size() < total_ * dim) staging = DeviceArray<T>(exec_, total_ * dim);
  for (std::size_t s = 0; s < values.size(); ++s) {
    TREMOR_CHECK(values[s].size == n_local_[s] * dim, "subdomain ", s, ": ", values[s].size, " values for ",
                 n_local_[s], " nodes");
    copy_values(exec_, (n_local_[s] - n_owned_[s]) * dim, values[s].data + n_owned_[s] * dim,
                staging.data() + base_[s] * dim);
  }
  // Every copy sums its node's copies in the same (subdomain) order: equal bits everywhere.
  for (std::size_t s = 0; s < values.size(); ++s)
    sum_copies(exec_, n_local_[s] - n_owned_[s], dim, offsets_[s].data(), sources_[s].data(),
               std::as_const(staging).data(), values[s].data + n_owned_[s] * dim);
}

template <class Real>
void InProcessExchange<Real>::finish_forces(std::span<const View<Real>> forces) {
  sum(forces, staged_forces_);
}

template <class Real>
void InProcessExchange<Real>::sum_mass(std::span<const View<double>> mass) {
  sum(mass, staged_mass_);
}

Neighbourhood::Neighbourhood(const partition::Decomposition& decomposition, const Communicator& communicator) {
  TREMOR_CHECK(decomposition.n_domains() == communicator.size(), "a decomposition into ", decomposition.n_domains(),
               " subdomains over ", communicator.size(), " processes: one subdomain each");
  const int rank = communicator.rank();
  const partition::Subdomain& mine = decomposition.domains.at(static_cast<std::size_t>(rank));
  n_local = static_cast<Index>(mine.nodes.size());
  n_owned = mine.n_owned;
  // The subdomains holding each of this one's shared nodes, in subdomain order.
  std::map<Index, Index> tail_of;  // model node -> its place in this subdomain's tail
  for (Index j = 0; j < mine.n_shared(); ++j) tail_of[mine.nodes[static_cast<std::size_t>(n_owned + j)]] = j;
  std::vector<std::vector<int>> holders(static_cast<std::size_t>(mine.n_shared()));
  for (int s = 0; s < decomposition.n_domains(); ++s) {
    const partition::Subdomain& domain = decomposition.domains[static_cast<std::size_t>(s)];
    for (Index k = domain.n_owned; k < static_cast<Index>(domain.nodes.size()); ++k) {
      const auto found = tail_of.find(domain.nodes[static_cast<std::size_t>(k)]);
      if (found != tail_of.end()) holders[static_cast<std::size_t>(found->second)].push_back(s);
    }
  }
  // Each neighbour's list: the shared nodes in ascending model order (the same on both sides).
  std::map<int, std::vector<std::pair<Index, Index>>> shared_with;  // neighbour -> (model node, tail index)
  for (const auto& [node, j] : tail_of)
    for (const int s : holders[static_cast<std::size_t>(j)])
      if (s != rank) shared_with[s].push_back({node, j});
  std::vector<std::map<Index, Index>> place(shared_with.size());  // per neighbour: tail index -> place
  for (const auto& [s, nodes] : shared_with) {
    neighbours.push_back(s);
    send_nodes.emplace_back();
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      send_nodes.back().push_back(nodes[k].second);
      place[neighbours.size() - 1][nodes[k].second] = static_cast<Index>(k);
    }
  }
  offsets.push_back(0);
  for (Index j = 0; j < mine.n_shared(); ++j) {
    const std::vector<int>& by = holders[static_cast<std::size_t>(j)];
    TREMOR_CHECK(by.size() >= 2, "subdomain ", rank, "'s shared node ", mine.nodes[static_cast<std::size_t>(n_owned + j)],
                 " is held by no other subdomain");
    for (const int s : by) {
      if (s == rank) {
        copies.push_back({-1, j});
        continue;
      }
      const auto n = static_cast<std::size_t>(std::lower_bound(neighbours.begin(), neighbours.end(), s) - neighbours.begin());
      copies.push_back({static_cast<int>(n), place[n].at(j)});
    }
    offsets.push_back(static_cast<Index>(copies.size()));
  }
}

template <class Real>
MpiExchange<Real>::MpiExchange(const Exec& exec, const partition::Decomposition& decomposition, int dim,
                               const Communicator& communicator, Strategy strategy)
    : exec_(exec), dim_(dim), communicator_(&communicator), strategy_(strategy),
      slots_(decomposition, communicator.rank()) {
  const Neighbourhood around(decomposition, communicator);
  n_local_ = around.n_local;
  n_owned_ = around.n_owned;
  neighbours_ = around.neighbours;
  send_nodes_ = around.send_nodes;
  offsets_ = around.offsets;
  copies_ = around.copies;
  const auto d = static_cast<std::size_t>(dim);
  tail_.resize(static_cast<std::size_t>(n_local_ - n_owned_) * d);
  if (strategy == Strategy::AllReduce) {
    all_.resize(static_cast<std::size_t>(slots_.n_slots) * d);
    return;
  }
  for (const std::vector<Index>& nodes : send_nodes_) {
    send_.emplace_back(nodes.size() * d);
    receive_.emplace_back(nodes.size() * d);
  }
}

template <class Real>
template <class T>
void MpiExchange<Real>::start(View<T> v) {
  const auto d = static_cast<std::size_t>(node_width(v.size, n_local_, dim_, "a subdomain's vector"));
  TREMOR_CHECK(!requests_.pending(), "an exchange started twice");
  width_ = d;  // the buffers sized for it (the forces of several shots, or the mass)
  tail_.resize(static_cast<std::size_t>(n_local_ - n_owned_) * d);
  if (strategy_ == Strategy::AllReduce) all_.resize(static_cast<std::size_t>(slots_.n_slots) * d);
  for (std::size_t n = 0; n < send_.size(); ++n) {
    send_[n].resize(send_nodes_[n].size() * d);
    receive_[n].resize(send_nodes_[n].size() * d);
  }
  // Values widened to double travel exactly and come back as they were.
  std::vector<T> tail(tail_.size());
  memory::copy(exec_, tail.data(), MemorySpace::Host, v.data + static_cast<std::size_t>(n_owned_) * d, v.space,
               tail.size() * sizeof(T));
  for (std::size_t k = 0; k < tail.size(); ++k) tail_[k] = static_cast<double>(tail[k]);
  if (strategy_ == Strategy::AllReduce) {
    std::fill(all_.begin(), all_.end(), 0.0);
    for (std::size_t j = 0; j < slots_.slots.size(); ++j)
      for (std::size_t c = 0; c < d; ++c) all_[static_cast<std::size_t>(slots_.slots[j]) * d + c] = tail_[j * d + c];
    requests_ = communicator_->start_sum(all_);
    return;
  }
  for (std::size_t n = 0; n < neighbours_.size(); ++n)
    for (std::size_t k = 0; k < send_nodes_[n].size(); ++k)
      for (std::size_t c = 0; c < d; ++c) send_[n][k * d + c] = tail_[static_cast<std::size_t>(send_nodes_[n][k]) * d + c];
  std::vector<std::span<const double>> send(send_.begin(), send_.end());
  std::vector<std::span<double>> receive(receive_.begin(), receive_.end());
  requests_ = communicator_->start_exchange(neighbours_, send, receive);
}

template <class Real>
template <class T>
void MpiExchange<Real>::finish(View<T> v) {
  const std::size_t d = width_;
  communicator_->wait(requests_);
  std::vector<T> summed(tail_.size());
  if (strategy_ == Strategy::AllReduce) {
    for (std::size_t j = 0; j < slots_.slots.size(); ++j)
      for (std::size_t c = 0; c < d; ++c)
        summed[j * d + c] = static_cast<T>(all_[static_cast<std::size_t>(slots_.slots[j]) * d + c]);
  } else {
    for (std::size_t j = 0; j + 1 < offsets_.size(); ++j)
      for (std::size_t c = 0; c < d; ++c) {
        T total = T(0);
        for (Index e = offsets_[j]; e < offsets_[j + 1]; ++e) {
          const auto [n, at] = copies_[static_cast<std::size_t>(e)];
          total += static_cast<T>(n < 0 ? tail_[j * d + c]
                                        : receive_[static_cast<std::size_t>(n)][static_cast<std::size_t>(at) * d + c]);
        }
        summed[j * d + c] = total;
      }
  }
  memory::copy(exec_, v.data + static_cast<std::size_t>(n_owned_) * d, v.space, summed.data(), MemorySpace::Host,
               summed.size() * sizeof(T));
}

template <class Real>
void MpiExchange<Real>::start_forces(std::span<const View<Real>> forces) {
  start(this_process<Real>(forces));
}

template <class Real>
void MpiExchange<Real>::finish_forces(std::span<const View<Real>> forces) {
  finish(this_process<Real>(forces));
}

template <class Real>
void MpiExchange<Real>::sum_mass(std::span<const View<double>> mass) {
  start(this_process<double>(mass));
  finish(this_process<double>(mass));
}

template class InProcessExchange<float>;
template class InProcessExchange<double>;
template class MpiExchange<float>;
template class MpiExchange<double>;

}  // namespace tremor::parallel
