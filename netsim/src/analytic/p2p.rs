//! Point-to-point messages: time = latency + size ÷ bandwidth, plus the wait
//! for a free output link at the sender's node, a free bus and a free input
//! link at the receiver's node.
//!
//! A message sent at `t` first spends the latency (start-up, no network
//! resource held); at `t + latency` it asks for the three resources and
//! holds them together for size ÷ bandwidth once all are free, granted first
//! come first served. Messages inside a node use the node's local latency
//! and bandwidth and no network resource.

use super::params::{after, MachineParams};
use super::resources::ServerPool;
use crate::base::time::Nanos;

/// The network's contended resources: links of every node (out and in)
/// and the buses.
#[derive(Clone, Debug)]
pub struct NetworkResources {
    out_links: Vec<ServerPool>,
    in_links: Vec<ServerPool>,
    buses: ServerPool,
}

/// When one message used the network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// Virtual time it asked for the resources (send time + latency).
    pub requested: Nanos,
    /// Virtual time it got them and started moving bytes.
    pub started: Nanos,
    /// Virtual time its last byte arrived.
    pub delivered: Nanos,
}

impl Transfer {
    /// Time spent waiting for links and buses, ns.
    pub fn waited_ns(&self) -> u64 {
        self.started.0 - self.requested.0
    }
}

impl NetworkResources {
    /// Free resources for the machine `m`.
    pub fn new(m: &MachineParams) -> NetworkResources {
        let nodes = m.nodes();
        NetworkResources {
            out_links: vec![ServerPool::new(m.links_per_node); nodes],
            in_links: vec![ServerPool::new(m.links_per_node); nodes],
            buses: ServerPool::new(m.buses),
        }
    }

    /// Reserves what a message of `bytes` from rank `src` to rank `dst`
    /// needs once it asks at `requested` (= send time + latency), and says
    /// when it starts and is delivered.
    pub fn transfer(
        &mut self,
        m: &MachineParams,
        src: u32,
        dst: u32,
        bytes: u64,
        requested: Nanos,
    ) -> Transfer {
        let (_, bandwidth) = m.path(src, dst);
        let hold = MachineParams::transfer_ns(bytes, bandwidth);
        if m.same_node(src, dst) {
            return Transfer {
                requested,
                started: requested,
                delivered: after(requested, hold),
            };
        }
        let (a, b) = (
            m.node_of_rank[src as usize] as usize,
            m.node_of_rank[dst as usize] as usize,
        );
        let (t_out, s_out) = self.out_links[a].earliest(requested);
        let (t_in, s_in) = self.in_links[b].earliest(requested);
        let (t_bus, s_bus) = self.buses.earliest(requested);
        let started = t_out.max(t_in).max(t_bus);
        let delivered = after(started, hold);
        self.out_links[a].occupy(s_out, delivered);
        self.in_links[b].occupy(s_in, delivered);
        self.buses.occupy(s_bus, delivered);
        Transfer {
            requested,
            started,
            delivered,
        }
    }
}

/// Time of a message of `bytes` between ranks `src` and `dst` on an idle
/// network: latency + size ÷ bandwidth (the closed form tests compare with).
pub fn idle_time_ns(m: &MachineParams, src: u32, dst: u32, bytes: u64) -> u64 {
    let (latency, bandwidth) = m.path(src, dst);
    latency + MachineParams::transfer_ns(bytes, bandwidth)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 4 ranks on 2 nodes of 2 processors; network 10 µs and 8 Gbps (1 byte
    /// per ns); local 1 µs and 80 Gbps (10 bytes per ns).
    pub(crate) fn machine(links: u32, buses: u32) -> MachineParams {
        MachineParams {
            latency_ns: 10_000,
            bandwidth_bps: 8_000_000_000,
            local_latency_ns: 1_000,
            local_bandwidth_bps: 80_000_000_000,
            links_per_node: links,
            buses,
            node_of_rank: vec![0, 0, 1, 1],
        }
    }

    #[test]
    fn idle_time_is_latency_plus_size_over_bandwidth() {
        let m = machine(1, 0);
        // Inter-node: 10 000 ns + 1000 B / (1 B/ns) = 11 000 ns.
        assert_eq!(idle_time_ns(&m, 0, 2, 1000), 11_000);
        // Intra-node: 1 000 ns + 1000 B / (10 B/ns) = 1 100 ns.
        assert_eq!(idle_time_ns(&m, 0, 1, 1000), 1_100);
        // Zero bytes cost the latency alone.
        assert_eq!(idle_time_ns(&m, 3, 1, 0), 10_000);
    }

    #[test]
    fn more_messages_than_buses_queue_fifo() {
        // 4 single-rank nodes, unlimited links, 2 buses. Three 1000-byte
        // messages between different node pairs ask at t = 10 µs together:
        // two get a bus at once (done at 11 µs), the third waits for the
        // first bus (starts 11 µs, done 12 µs).
        let mut m = machine(0, 2);
        m.node_of_rank = vec![0, 1, 2, 3, 4, 5];
        let mut r = NetworkResources::new(&m);
        let t = Nanos(10_000);
        let a = r.transfer(&m, 0, 1, 1000, t);
        let b = r.transfer(&m, 2, 3, 1000, t);
        let c = r.transfer(&m, 4, 5, 1000, t);
        assert_eq!(a.delivered, Nanos(11_000));
        assert_eq!(b.delivered, Nanos(11_000));
        assert_eq!((c.started, c.delivered), (Nanos(11_000), Nanos(12_000)));
        assert_eq!(c.waited_ns(), 1_000);
    }

    #[test]
    fn one_output_link_serialises_a_nodes_messages() {
        // Node 0 (ranks 0, 1) has one link out; unlimited buses. Its two
        // ranks send 500 bytes each to node 1 at the same instant: the
        // second waits the first's 500 ns.
        let m = machine(1, 0);
        let mut r = NetworkResources::new(&m);
        let a = r.transfer(&m, 0, 2, 500, Nanos(0));
        let b = r.transfer(&m, 1, 3, 500, Nanos(0));
        assert_eq!(a.delivered, Nanos(500));
        assert_eq!((b.started, b.delivered), (Nanos(500), Nanos(1_000)));
        // With two links per node they overlap.
        let m2 = machine(2, 0);
        let mut r2 = NetworkResources::new(&m2);
        r2.transfer(&m2, 0, 2, 500, Nanos(0));
        assert_eq!(r2.transfer(&m2, 1, 3, 500, Nanos(0)).delivered, Nanos(500));
    }

    #[test]
    fn one_input_link_serialises_messages_to_a_node() {
        // Nodes 0 and 1 each send 1000 bytes to node 2 (one input link).
        let mut m = machine(1, 0);
        m.node_of_rank = vec![0, 1, 2];
        let mut r = NetworkResources::new(&m);
        let a = r.transfer(&m, 0, 2, 1000, Nanos(0));
        let b = r.transfer(&m, 1, 2, 1000, Nanos(0));
        assert_eq!(a.delivered, Nanos(1_000));
        assert_eq!(b.delivered, Nanos(2_000));
    }

    #[test]
    fn local_messages_use_no_network_resource() {
        // One bus busy with an inter-node message does not delay a local one.
        let m = machine(1, 1);
        let mut r = NetworkResources::new(&m);
        r.transfer(&m, 0, 2, 100_000, Nanos(0));
        let local = r.transfer(&m, 0, 1, 1000, Nanos(1_000));
        assert_eq!(local.delivered, Nanos(1_100));
    }
}
