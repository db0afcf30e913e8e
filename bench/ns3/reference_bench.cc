// ns-3 (3.37) reference benchmark for mpinetsim.
//
// Simulates the mpinetsim "reference network" (configs/reference.toml) and the
// pingpong / alltoall workloads so the wall-clock speed of the two simulators
// can be compared.
//
// Network: 4 hosts, each on its own full-duplex 1 Gbps link with 0.5 ms
// propagation delay to one central node ("switch0"); host-to-host latency is
// therefore 1 ms plus two serialisations. IP MTU 1500.
//
// How the switch is modelled: every host<->switch link is a PointToPoint
// link, and the switch node forwards by IPv4 (static routes from
// Ipv4GlobalRoutingHelper). This is a store-and-forward device with one
// drop-tail output queue per port, exactly the queueing behaviour of an L2
// switch. The L2 alternative (CsmaNetDevice + BridgeNetDevice) was rejected:
// ns-3 3.37's CsmaChannel is a half-duplex shared medium (data and ACKs of
// one link would contend, with CSMA backoff), and PointToPointNetDevice cannot
// be bridged (no SendFrom support). Differences from a real Ethernet switch:
// per-frame overhead is the 2-byte PPP header instead of Ethernet's
// 14 + 4 (FCS) + 20 (preamble + inter-frame gap) bytes (~2.4% less
// serialisation time for full-size frames), and the switch decrements TTL
// (no effect here).
//
// Queues: each device has a 1000-packet DropTail queue (= queue_packets in
// reference.toml; --queuePackets); the ns-3 traffic-control queue discs are
// removed so no second queue sits in front of the device. ns-3 has no TCP
// small queues: a host whose NIC queue is full drops the segment locally
// (mpinetsim instead holds segments back). Drop counts go to stderr.
//
// TCP: NewReno, no SACK, no timestamps (mpinetsim has neither), MSS 1460
// (= MTU - 40), initial cwnd 10, RTO min 200 ms, initial RTO 1 s, Nagle off
// (TcpNoDelay), delayed-ACK count 1 by default (ACK every segment; 2 matches
// reference.toml), 4 MiB send/receive buffers with window scaling by default.
// --likeMpinetsim=1 switches to reference.toml's values (delayed-ACK count 2,
// 40 ms timer, 512 KiB buffers) and gives the host NICs an effectively
// unbounded queue, standing in for mpinetsim's TCP-small-queues behaviour.
//
// --cc=cubic switches to TcpCubic (HyStart off: mpinetsim has none), --sack=1
// turns SACK on, --rate/--delay change every link (the reference values by
// default), and --ethernetFraming=1 lowers the point-to-point rate by
// 1502/1538 so a full 1460-byte segment takes as long as on mpinetsim's
// Ethernet links (PPP's 2 bytes against Ethernet's 38). The `exchange`
// workload sends --size bytes from host0 to host1 on one connection and, once
// they have all arrived, --size bytes back on another (mpinetsim opens a
// connection per direction): `mpinetsim simulate --workload pingpong
// --iters 1 --size N`.
//
// The `fattree` workload builds its own network instead: a k = 4 fat-tree of
// IPv4 routers (4 pods of 2 edge and 2 aggregation routers, 4 cores, 16
// hosts, host h on edge router (h / 2) of pod h / 4), host links at --rate,
// router-to-router links at --fabricRate, every link --delay. Global routing
// with RandomEcmpRouting on: every router draws each packet's next hop among
// the equal-cost ones (per-packet ECMP, mpinetsim's routing = "spray").
// Host h sends --size bytes to host (h + 4) mod 16, one connection each, all
// starting at 0; simulated_s is when the last byte arrived.
//
// Output (one line):
//   workload=<name> simulated_s=<t of last byte> wall_s=<Simulator::Run> events=<n>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <vector>

using namespace ns3;

namespace
{

const uint32_t kHosts = 4;
const uint16_t kBasePort = 35000; // host i listens on 35000 + i (as mpinetsim)

// Time the last awaited byte arrived; negative while not finished.
double g_finishedAt = -1.0;

void
Finish()
{
    g_finishedAt = Simulator::Now().GetSeconds();
    Simulator::Stop();
}

// ---------------------------------------------------------------- pingpong

struct PingPong
{
    uint32_t msgSize = 32;
    uint64_t iters = 10000;
    uint64_t done = 0;     // round trips completed (client side)
    uint64_t clientRx = 0; // bytes of the current reply received
    uint64_t serverRx = 0; // bytes of the current request received
    std::vector<uint8_t> buf;
    Ptr<Socket> client;

    void SendMsg(Ptr<Socket> s)
    {
        int sent = s->Send(buf.data(), msgSize, 0);
        NS_ABORT_MSG_IF(sent != static_cast<int>(msgSize), "short send");
    }

    void ClientConnected(Ptr<Socket> s)
    {
        SendMsg(s);
    }

    void ClientConnectFailed(Ptr<Socket>)
    {
        NS_FATAL_ERROR("pingpong connect failed");
    }

    void ClientRecv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            clientRx += p->GetSize();
        }
        while (clientRx >= msgSize)
        {
            clientRx -= msgSize;
            if (++done == iters)
            {
                Finish();
                return;
            }
            SendMsg(s);
        }
    }

    void ServerRecv(Ptr<Socket> s)
    {
        Ptr<Packet> p;
        while ((p = s->Recv()))
        {
            serverRx += p->GetSize();
        }
        while (serverRx >= msgSize)
        {
            serverRx -= msgSize;
            SendMsg(s);
        }
    }

    bool AcceptRequest(Ptr<Socket>, const Address&)
    {
        return true;
    }

    void Accepted(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&PingPong::ServerRecv, this));
    }
};

// ---------------------------------------------------------------- exchange

struct Exchange
{
    uint64_t size = 0;
    uint64_t atHost1 = 0;
    uint64_t atHost0 = 0;
    Ptr<Node> host1;
    Address host0;
    uint32_t sendSize = 65536;

    void AtHost1(Ptr<const Packet> p, const Address&)
    {
        atHost1 += p->GetSize();
        if (atHost1 == size)
        {
            BulkSendHelper back("ns3::TcpSocketFactory", host0);
            back.SetAttribute("MaxBytes", UintegerValue(size));
            back.SetAttribute("SendSize", UintegerValue(sendSize));
            back.Install(host1).Start(Seconds(0));
        }
    }

    void AtHost0(Ptr<const Packet> p, const Address&)
    {
        atHost0 += p->GetSize();
        if (atHost0 == size)
        {
            Finish();
        }
    }
};

// ---------------------------------------------------------------- alltoall

// Frames dropped because an output queue was full: by the device queue, or
// by the traffic-control layer when the device queue is stopped (full).
uint64_t g_hostDrops = 0;
uint64_t g_switchDrops = 0;

void
CountDrop(uint64_t* counter, Ptr<const Packet>)
{
    ++*counter;
}

uint64_t g_a2aExpected = 0;
uint64_t g_a2aReceived = 0;

// --progress=1: print alltoall bytes received every 10 ms of simulated time.
void
Progress()
{
    std::fprintf(stderr,
                 "progress: t=%.3f received=%llu\n",
                 Simulator::Now().GetSeconds(),
                 static_cast<unsigned long long>(g_a2aReceived));
    Simulator::Schedule(MilliSeconds(10), &Progress);
}

void
SinkRx(Ptr<const Packet> p, const Address&)
{
    g_a2aReceived += p->GetSize();
    if (g_a2aReceived == g_a2aExpected)
    {
        Finish();
    }
}

// ---------------------------------------------------------------- fattree

uint64_t
FramedBps(const std::string& rate, bool ethernetFraming)
{
    uint64_t bps = DataRate(rate).GetBitRate();
    return ethernetFraming ? bps * 1502 / 1538 : bps;
}

// The k = 4 fat-tree permutation described in the header comment.
int
RunFatTree(uint64_t size,
           const std::string& rate,
           const std::string& fabricRate,
           const std::string& delay,
           bool ethernetFraming,
           uint32_t queuePackets,
           uint32_t hostQueuePackets,
           bool randomEcmp)
{
    const uint32_t k = 4;
    const uint32_t half = k / 2;
    const uint32_t nHosts = k * k * k / 4;
    Config::SetDefault("ns3::Ipv4GlobalRouting::RandomEcmpRouting", BooleanValue(randomEcmp));

    NodeContainer hosts;
    hosts.Create(nHosts);
    NodeContainer edges;
    edges.Create(k * half);
    NodeContainer aggs;
    aggs.Create(k * half);
    NodeContainer cores;
    cores.Create(half * half);
    InternetStackHelper stack;
    stack.InstallAll();

    PointToPointHelper hostLink;
    hostLink.SetDeviceAttribute("DataRate", DataRateValue(DataRate(FramedBps(rate, ethernetFraming))));
    PointToPointHelper fabricLink;
    fabricLink.SetDeviceAttribute("DataRate",
                                  DataRateValue(DataRate(FramedBps(fabricRate, ethernetFraming))));
    for (PointToPointHelper* h : {&hostLink, &fabricLink})
    {
        h->SetDeviceAttribute("Mtu", UintegerValue(1500));
        h->SetChannelAttribute("Delay", StringValue(delay));
        h->SetQueue("ns3::DropTailQueue<Packet>",
                    "MaxSize",
                    QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePackets)));
    }

    Ipv4AddressHelper ipv4;
    ipv4.SetBase("10.0.0.0", "255.255.255.252");
    TrafficControlHelper tch;
    std::vector<Ipv4Address> hostAddr(nHosts);
    auto join = [&](PointToPointHelper& h, Ptr<Node> a, Ptr<Node> b) {
        NetDeviceContainer d = h.Install(a, b);
        Ipv4InterfaceContainer ifs = ipv4.Assign(d);
        ipv4.NewNetwork();
        tch.Uninstall(d);
        return std::make_pair(d, ifs);
    };
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        auto [d, ifs] = join(hostLink, hosts.Get(h), edges.Get(h / half));
        if (hostQueuePackets != 0)
        {
            DynamicCast<PointToPointNetDevice>(d.Get(0))->GetQueue()->SetMaxSize(
                QueueSize(QueueSizeUnit::PACKETS, hostQueuePackets));
        }
        hostAddr[h] = ifs.GetAddress(0);
    }
    for (uint32_t pod = 0; pod < k; ++pod)
    {
        for (uint32_t e = 0; e < half; ++e)
        {
            for (uint32_t a = 0; a < half; ++a)
            {
                join(fabricLink, edges.Get(pod * half + e), aggs.Get(pod * half + a));
            }
        }
        for (uint32_t a = 0; a < half; ++a)
        {
            for (uint32_t c = 0; c < half; ++c)
            {
                join(fabricLink, aggs.Get(pod * half + a), cores.Get(a * half + c));
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_a2aExpected = size * nHosts;
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), kBasePort + h));
        ApplicationContainer a = sink.Install(hosts.Get(h));
        a.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
    }
    for (uint32_t h = 0; h < nHosts; ++h)
    {
        uint32_t dst = (h + k) % nHosts;
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(hostAddr[dst], kBasePort + dst));
        bulk.SetAttribute("MaxBytes", UintegerValue(size));
        bulk.SetAttribute("SendSize", UintegerValue(65536));
        bulk.Install(hosts.Get(h)).Start(Seconds(0));
    }

    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    uint64_t events = Simulator::GetEventCount();
    if (g_finishedAt < 0)
    {
        std::fprintf(stderr,
                     "warning: fattree did not finish (received %llu of %llu)\n",
                     static_cast<unsigned long long>(g_a2aReceived),
                     static_cast<unsigned long long>(g_a2aExpected));
    }
    std::printf("workload=fattree simulated_s=%.9f wall_s=%.6f events=%llu\n",
                g_finishedAt,
                wall,
                static_cast<unsigned long long>(events));
    Simulator::Destroy();
    return g_finishedAt < 0 ? 1 : 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string workload = "pingpong";
    uint64_t iters = 10000;
    uint64_t size = 16777216;
    uint32_t msgSize = 32;
    bool pcap = false;
    std::string pcapPrefix = "reference_bench";
    uint32_t delAckCount = 1;
    uint32_t bufBytes = 4 * 1024 * 1024;
    uint32_t sendSize = 1460;
    bool progress = false;
    uint32_t queuePackets = 1000;
    uint32_t hostQueuePackets = 0; // 0: same as queuePackets
    bool likeMpinetsim = false;
    std::string cc = "newreno";
    bool sack = false;
    std::string rate = "1Gbps";
    std::string delay = "500us";
    bool ethernetFraming = false;
    std::string fabricRate = "2Gbps";
    bool randomEcmp = true;

    CommandLine cmd(__FILE__);
    cmd.AddValue("randomEcmp", "fattree: per-packet random ECMP (0: first route)", randomEcmp);
    cmd.AddValue("fabricRate", "fattree: rate of the router-to-router links", fabricRate);
    cmd.AddValue("workload", "pingpong | alltoall | exchange | fattree", workload);
    cmd.AddValue("cc", "congestion control: newreno | cubic", cc);
    cmd.AddValue("sack", "SACK (0/1)", sack);
    cmd.AddValue("rate", "rate of every link", rate);
    cmd.AddValue("delay", "delay of every link", delay);
    cmd.AddValue("ethernetFraming",
                 "scale the rate by 1502/1538 so full segments take Ethernet's time (0/1)",
                 ethernetFraming);
    cmd.AddValue("iters", "pingpong round trips", iters);
    cmd.AddValue("size", "alltoall bytes per ordered host pair", size);
    cmd.AddValue("msgSize", "pingpong message bytes", msgSize);
    cmd.AddValue("pcap", "write pcap files (0/1)", pcap);
    cmd.AddValue("pcapPrefix", "pcap file name prefix", pcapPrefix);
    cmd.AddValue("delAckCount", "ACK after this many segments (1 = every)", delAckCount);
    cmd.AddValue("bufBytes", "TCP send and receive buffer bytes", bufBytes);
    cmd.AddValue("sendSize", "alltoall BulkSend write size", sendSize);
    cmd.AddValue("queuePackets", "DropTail limit of every device queue", queuePackets);
    cmd.AddValue("hostQueuePackets",
                 "DropTail limit of the host NIC queues (0 = queuePackets)",
                 hostQueuePackets);
    cmd.AddValue("progress", "print alltoall progress every 10 ms (0/1)", progress);
    cmd.AddValue("likeMpinetsim",
                 "use reference.toml's TCP settings instead: delAckCount=2, bufBytes=512KiB, "
                 "hostQueuePackets=1000000 (stands in for TCP small queues: no local drops)",
                 likeMpinetsim);
    cmd.Parse(argc, argv);
    if (likeMpinetsim)
    {
        delAckCount = 2;
        bufBytes = 512 * 1024;
        hostQueuePackets = 1000000;
    }
    NS_ABORT_MSG_UNLESS(workload == "pingpong" || workload == "alltoall" ||
                            workload == "exchange" || workload == "fattree",
                        "--workload must be pingpong, alltoall, exchange or fattree");
    NS_ABORT_MSG_UNLESS(cc == "newreno" || cc == "cubic", "--cc must be newreno or cubic");

    // ---- TCP defaults
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(cc == "cubic" ? TcpCubic::GetTypeId()
                                                 : TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1460));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(40)));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(bufBytes));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(bufBytes));
    Config::SetDefault("ns3::TcpSocket::ConnTimeout", TimeValue(Seconds(1)));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));

    if (workload == "fattree")
    {
        return RunFatTree(size, rate, fabricRate, delay, ethernetFraming, queuePackets,
                          hostQueuePackets, randomEcmp);
    }

    // ---- topology: host0..3 -- switch0
    NodeContainer hosts;
    hosts.Create(kHosts);
    Ptr<Node> sw = CreateObject<Node>();

    PointToPointHelper p2p;
    uint64_t bps = DataRate(rate).GetBitRate();
    if (ethernetFraming)
    {
        bps = bps * 1502 / 1538;
    }
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(bps)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(1500));
    p2p.SetChannelAttribute("Delay", StringValue(delay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queuePackets)));

    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(sw);

    std::vector<Ipv4Address> hostAddr(kHosts);
    NetDeviceContainer allDevs;
    Ipv4AddressHelper ipv4;
    TrafficControlHelper tch;
    for (uint32_t i = 0; i < kHosts; ++i)
    {
        NetDeviceContainer d = p2p.Install(hosts.Get(i), sw);
        if (hostQueuePackets != 0)
        {
            DynamicCast<PointToPointNetDevice>(d.Get(0))->GetQueue()->SetMaxSize(
                QueueSize(QueueSizeUnit::PACKETS, hostQueuePackets));
        }
        char net[32];
        std::snprintf(net, sizeof(net), "10.1.%u.0", i + 1);
        ipv4.SetBase(net, "255.255.255.0");
        Ipv4InterfaceContainer ifs = ipv4.Assign(d);
        hostAddr[i] = ifs.GetAddress(0);
        tch.Uninstall(d); // no queue disc in front of the device queue
        allDevs.Add(d);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    for (uint32_t i = 0; i < allDevs.GetN(); ++i)
    {
        Ptr<PointToPointNetDevice> d = DynamicCast<PointToPointNetDevice>(allDevs.Get(i));
        uint64_t* counter = d->GetNode() == sw ? &g_switchDrops : &g_hostDrops;
        d->GetQueue()->TraceConnectWithoutContext("Drop", MakeBoundCallback(&CountDrop, counter));
    }
    for (uint32_t i = 0; i <= kHosts; ++i)
    {
        Ptr<Node> n = i < kHosts ? hosts.Get(i) : sw;
        uint64_t* counter = n == sw ? &g_switchDrops : &g_hostDrops;
        n->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop",
            MakeBoundCallback(&CountDrop, counter));
    }

    if (pcap)
    {
        p2p.EnablePcapAll(pcapPrefix);
    }

    // ---- workload
    PingPong pp;
    Exchange ex;
    if (workload == "exchange")
    {
        ex.size = size;
        ex.host1 = hosts.Get(1);
        ex.host0 = InetSocketAddress(hostAddr[0], kBasePort);
        PacketSinkHelper sink1("ns3::TcpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), kBasePort + 1));
        sink1.Install(hosts.Get(1))
            .Get(0)
            ->TraceConnectWithoutContext("Rx", MakeCallback(&Exchange::AtHost1, &ex));
        PacketSinkHelper sink0("ns3::TcpSocketFactory",
                               InetSocketAddress(Ipv4Address::GetAny(), kBasePort));
        sink0.Install(hosts.Get(0))
            .Get(0)
            ->TraceConnectWithoutContext("Rx", MakeCallback(&Exchange::AtHost0, &ex));
        BulkSendHelper ping("ns3::TcpSocketFactory", InetSocketAddress(hostAddr[1], kBasePort + 1));
        ping.SetAttribute("MaxBytes", UintegerValue(size));
        ping.SetAttribute("SendSize", UintegerValue(ex.sendSize));
        ping.Install(hosts.Get(0)).Start(Seconds(0));
    }
    else if (workload == "pingpong")
    {
        pp.msgSize = msgSize;
        pp.iters = iters;
        pp.buf.assign(msgSize, 0x5a);

        Ptr<Socket> listener = Socket::CreateSocket(hosts.Get(1), TcpSocketFactory::GetTypeId());
        listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), kBasePort + 1));
        listener->Listen();
        listener->SetAcceptCallback(MakeCallback(&PingPong::AcceptRequest, &pp),
                                    MakeCallback(&PingPong::Accepted, &pp));

        pp.client = Socket::CreateSocket(hosts.Get(0), TcpSocketFactory::GetTypeId());
        pp.client->Bind(InetSocketAddress(Ipv4Address::GetAny(), 50000 + 0));
        pp.client->SetConnectCallback(MakeCallback(&PingPong::ClientConnected, &pp),
                                      MakeCallback(&PingPong::ClientConnectFailed, &pp));
        pp.client->SetRecvCallback(MakeCallback(&PingPong::ClientRecv, &pp));
        Ptr<Socket> c = pp.client;
        Ipv4Address dst = hostAddr[1];
        Simulator::ScheduleNow([c, dst]() { c->Connect(InetSocketAddress(dst, kBasePort + 1)); });
    }
    else
    {
        g_a2aExpected = size * kHosts * (kHosts - 1);
        if (progress)
        {
            Simulator::Schedule(MilliSeconds(10), &Progress);
        }
        for (uint32_t dst = 0; dst < kHosts; ++dst)
        {
            PacketSinkHelper sink("ns3::TcpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), kBasePort + dst));
            ApplicationContainer a = sink.Install(hosts.Get(dst));
            a.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&SinkRx));
            a.Start(Seconds(0));
        }
        for (uint32_t src = 0; src < kHosts; ++src)
        {
            for (uint32_t dst = 0; dst < kHosts; ++dst)
            {
                if (src == dst)
                {
                    continue;
                }
                BulkSendHelper bulk("ns3::TcpSocketFactory",
                                    InetSocketAddress(hostAddr[dst], kBasePort + dst));
                bulk.SetAttribute("MaxBytes", UintegerValue(size));
                bulk.SetAttribute("SendSize", UintegerValue(sendSize));
                ApplicationContainer a = bulk.Install(hosts.Get(src));
                a.Start(Seconds(0));
            }
        }
    }

    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    double wall = std::chrono::duration<double>(t1 - t0).count();
    uint64_t events = Simulator::GetEventCount();

    if (g_finishedAt < 0)
    {
        std::fprintf(stderr,
                     "warning: workload did not finish (pingpong done=%llu, alltoall "
                     "received=%llu of %llu)\n",
                     static_cast<unsigned long long>(pp.done),
                     static_cast<unsigned long long>(g_a2aReceived),
                     static_cast<unsigned long long>(g_a2aExpected));
    }
    std::fprintf(stderr,
                 "info: queue_drops host=%llu switch=%llu\n",
                 static_cast<unsigned long long>(g_hostDrops),
                 static_cast<unsigned long long>(g_switchDrops));
    std::printf("workload=%s simulated_s=%.9f wall_s=%.6f events=%llu\n",
                workload.c_str(),
                g_finishedAt,
                wall,
                static_cast<unsigned long long>(events));
    Simulator::Destroy();
    return g_finishedAt < 0 ? 1 : 0;
}
