-- Wireshark dissector for the messages of mpinetsim's channel shim.
--
-- Every MPI-level message the shim sends starts with a 56-byte envelope
-- (layout: channel-shim/engine/src/envelope.rs) followed by its payload; the
-- simulated TCP connections between ranks carry these back to back, so one
-- message may span many segments (reassembled here with dissect_tcp_pdus).
-- Ranks listen on TCP ports 35000+rank and connect from 50000+rank.
--
-- Use: wireshark -X lua_script:docs/wireshark/mpinetsim.lua capture.pcap
--  or: tshark -X lua_script:docs/wireshark/mpinetsim.lua -r capture.pcap -Y mpinetsim

local p = Proto("mpinetsim", "mpinetsim MPI envelope")

local kinds = { [1] = "eager", [2] = "rendezvous request", [3] = "clear-to-send",
                [4] = "rendezvous data", [5] = "sync ack", [6] = "control", [7] = "piece ack",
                [8] = "cancel request", [9] = "cancel reply", [10] = "RMA put", [11] = "RMA get",
                [12] = "RMA accumulate", [13] = "RMA get-accumulate", [14] = "RMA compare-and-swap",
                [15] = "RMA ack", [16] = "RMA reply", [17] = "RMA post", [18] = "RMA complete",
                [19] = "RMA lock", [20] = "RMA lock granted", [21] = "RMA unlock" }
local short_kinds = { [1] = "eager", [2] = "RTS", [3] = "CTS", [4] = "data", [5] = "ack", [6] = "control",
                      [7] = "piece-ack", [8] = "cancel", [9] = "cancel-reply", [10] = "Put", [11] = "Get",
                      [12] = "Accumulate", [13] = "Get_accumulate", [14] = "Compare_and_swap",
                      [15] = "RMA ack", [16] = "Get reply", [17] = "Win_post", [18] = "Win_complete",
                      [19] = "Win_lock", [20] = "lock granted", [21] = "Win_unlock" }
-- Reduction ops of accumulates, in the order of channel-shim/engine/src/rma/wire.rs.
local rma_ops = { [0] = "MAX", [1] = "MIN", [2] = "SUM", [3] = "PROD", [4] = "LAND", [5] = "BAND",
                  [6] = "LOR", [7] = "BOR", [8] = "LXOR", [9] = "BXOR", [10] = "MINLOC",
                  [11] = "MAXLOC", [12] = "REPLACE", [13] = "NO_OP" }
local calls = {
  [0] = "other", [1] = "MPI_Send", [2] = "MPI_Isend", [3] = "MPI_Ssend", [4] = "MPI_Issend",
  [5] = "MPI_Bsend", [6] = "MPI_Ibsend", [7] = "MPI_Rsend", [8] = "MPI_Irsend", [9] = "MPI_Send_init",
  [10] = "MPI_Sendrecv", [11] = "MPI_Sendrecv_replace", [12] = "MPI_Recv", [13] = "MPI_Irecv",
  [14] = "MPI_Recv_init", [15] = "MPI_Ssend_init", [16] = "MPI_Bsend_init", [17] = "MPI_Rsend_init",
  [18] = "MPI_Cancel", [19] = "MPI_Isendrecv", [20] = "MPI_Isendrecv_replace",
  [21] = "MPI_Put", [22] = "MPI_Get", [23] = "MPI_Accumulate", [24] = "MPI_Get_accumulate",
  [25] = "MPI_Fetch_and_op", [26] = "MPI_Compare_and_swap", [27] = "MPI_Win_fence",
  [28] = "MPI_Win_post", [29] = "MPI_Win_complete", [30] = "MPI_Win_create", [31] = "MPI_Win_free",
  [32] = "MPI_Barrier", [33] = "MPI_Bcast", [34] = "MPI_Reduce", [35] = "MPI_Allreduce",
  [36] = "MPI_Gather", [37] = "MPI_Gatherv", [38] = "MPI_Scatter", [39] = "MPI_Scatterv",
  [40] = "MPI_Allgather", [41] = "MPI_Allgatherv", [42] = "MPI_Alltoall", [43] = "MPI_Alltoallv",
  [44] = "MPI_Alltoallw", [45] = "MPI_Reduce_scatter", [46] = "MPI_Reduce_scatter_block",
  [47] = "MPI_Scan", [48] = "MPI_Exscan", [64] = "MPI_Comm_dup", [65] = "MPI_Comm_split",
  [66] = "MPI_Comm_create", [67] = "MPI_Cart_create", [68] = "MPI_Graph_create",
  [69] = "MPI_Dist_graph_create", [70] = "MPI_Dist_graph_create_adjacent",
  [71] = "MPI_Comm_idup", [72] = "MPI_Comm_split_type", [73] = "MPI_Comm_create_group",
  [74] = "MPI_Intercomm_create", [75] = "MPI_Intercomm_merge",
  [96] = "MPI_Neighbor_allgather", [97] = "MPI_Neighbor_allgatherv", [98] = "MPI_Neighbor_alltoall",
  [99] = "MPI_Neighbor_alltoallv", [100] = "MPI_Neighbor_alltoallw",
  [101] = "MPI_Ineighbor_allgather", [102] = "MPI_Ineighbor_allgatherv",
  [103] = "MPI_Ineighbor_alltoall", [104] = "MPI_Ineighbor_alltoallv",
  [105] = "MPI_Ineighbor_alltoallw",
  [128] = "MPI_Ibarrier", [129] = "MPI_Ibcast", [130] = "MPI_Ireduce", [131] = "MPI_Iallreduce",
  [132] = "MPI_Igather", [133] = "MPI_Igatherv", [134] = "MPI_Iscatter", [135] = "MPI_Iscatterv",
  [136] = "MPI_Iallgather", [137] = "MPI_Iallgatherv", [138] = "MPI_Ialltoall",
  [139] = "MPI_Ialltoallv", [140] = "MPI_Ialltoallw", [141] = "MPI_Ireduce_scatter",
  [142] = "MPI_Ireduce_scatter_block", [143] = "MPI_Iscan", [144] = "MPI_Iexscan",
  [160] = "MPI_Win_lock", [161] = "MPI_Win_unlock", [162] = "MPI_Win_lock_all", [163] = "MPI_Win_unlock_all",
  [164] = "MPI_Pready",
  [165] = "MPI_Comm_connect", [166] = "MPI_Comm_revoke",
}

local f = {
  magic = ProtoField.uint8("mpinetsim.magic", "Magic", base.HEX),
  version = ProtoField.uint8("mpinetsim.version", "Version"),
  kind = ProtoField.uint8("mpinetsim.kind", "Kind", base.DEC, kinds),
  sync = ProtoField.bool("mpinetsim.sync", "Synchronous send"),
  coll_error = ProtoField.bool("mpinetsim.coll_error", "Sent after the sender's collective failed"),
  inter = ProtoField.bool("mpinetsim.inter", "Intercommunicator"),
  coll_seq = ProtoField.uint32("mpinetsim.coll_seq", "Collective call on its communicator"),
  call = ProtoField.uint8("mpinetsim.call", "MPI call", base.DEC, calls),
  src = ProtoField.uint32("mpinetsim.src", "Source rank"),
  dst = ProtoField.uint32("mpinetsim.dst", "Destination rank"),
  tag = ProtoField.int32("mpinetsim.tag", "Tag"),
  context = ProtoField.uint32("mpinetsim.context", "Communicator context"),
  comm = ProtoField.string("mpinetsim.comm", "Communicator"),
  seq = ProtoField.uint32("mpinetsim.seq", "Sequence"),
  sender_op = ProtoField.uint32("mpinetsim.sender_op", "Sender operation"),
  receiver_op = ProtoField.uint32("mpinetsim.receiver_op", "Receiver operation"),
  msg_len = ProtoField.uint64("mpinetsim.msg_len", "Message length"),
  payload_len = ProtoField.uint64("mpinetsim.payload_len", "Payload length"),
  payload = ProtoField.bytes("mpinetsim.payload", "Payload"),
  rma_disp = ProtoField.int64("mpinetsim.rma.disp", "Target displacement (window units)"),
  rma_count = ProtoField.uint64("mpinetsim.rma.count", "Target count"),
  rma_offset = ProtoField.uint64("mpinetsim.rma.offset", "Packed offset of this piece"),
  rma_len = ProtoField.uint64("mpinetsim.rma.len", "Packed length of this piece"),
  rma_op = ProtoField.uint8("mpinetsim.rma.op", "Accumulate op", base.DEC, rma_ops),
  rma_runs = ProtoField.uint32("mpinetsim.rma.runs", "Target datatype run groups"),
}
p.fields = f

local HEADER = 56

local function comm_name(ctx)
  local base = ctx - (ctx % 2)
  local what = (ctx % 2 == 1) and " (collective)" or ""
  if base == 0 then return "WORLD" .. what end
  if base == 2 then return "SELF" .. what end
  return "ctx " .. base .. what
end

local function pdu_len(tvb, pinfo, offset)
  return HEADER + tvb(offset + 48, 8):le_uint64():tonumber()
end

local function dissect_one(tvb, pinfo, tree)
  if tvb(0, 1):uint() ~= 0x4D then return 0 end
  local kind = tvb(2, 1):uint()
  local src, dst = tvb(8, 4):le_uint(), tvb(12, 4):le_uint()
  local tag, ctx = tvb(16, 4):le_int(), tvb(20, 4):le_uint()
  local plen = tvb(48, 8):le_uint64():tonumber()
  local mlen = tvb(40, 8):le_uint64():tonumber()
  local t = tree:add(p, tvb(0, HEADER + plen))
  t:add(f.magic, tvb(0, 1))
  t:add(f.version, tvb(1, 1))
  t:add(f.kind, tvb(2, 1))
  t:add(f.sync, tvb(3, 1):uint() % 2 == 1)
  t:add(f.coll_error, math.floor(tvb(3, 1):uint() / 2) % 2 == 1)
  local inter = math.floor(tvb(3, 1):uint() / 4) % 2 == 1
  t:add(f.inter, inter)
  t:add(f.call, tvb(4, 1))
  t:add_le(f.src, tvb(8, 4))
  t:add_le(f.dst, tvb(12, 4))
  t:add_le(f.tag, tvb(16, 4))
  -- A collective's tag: its call's sequence number on the communicator
  -- (bits 8-30) above the call code; negative for the calls of a subgroup
  -- (MPI_Comm_create_group, MPI_Intercomm_create: -1 - the program's tag).
  local collective = ctx % 2 == 1 and tag >= 0
  if collective then t:add(f.coll_seq, math.floor(tag / 256)) end
  t:add_le(f.context, tvb(20, 4))
  t:add(f.comm, comm_name(ctx))
  t:add_le(f.seq, tvb(24, 4))
  t:add_le(f.sender_op, tvb(28, 4))
  t:add_le(f.receiver_op, tvb(32, 4))
  t:add_le(f.msg_len, tvb(40, 8))
  t:add_le(f.payload_len, tvb(48, 8))
  if plen > 0 then t:add(f.payload, tvb(HEADER, plen)) end
  -- One-sided requests: the target location leads the payload
  -- (channel-shim/engine/src/rma/wire.rs).
  local rma, op = "", ""
  if kind >= 10 and kind <= 14 and plen >= 72 then
    local disp = tvb(HEADER, 8):le_int64():tonumber()
    t:add_le(f.rma_disp, tvb(HEADER, 8))
    t:add_le(f.rma_count, tvb(HEADER + 8, 8))
    t:add_le(f.rma_offset, tvb(HEADER + 16, 8))
    t:add_le(f.rma_len, tvb(HEADER + 24, 8))
    t:add(f.rma_op, tvb(HEADER + 32, 1))
    t:add_le(f.rma_runs, tvb(HEADER + 36, 4))
    if kind == 12 or kind == 13 then op = " " .. (rma_ops[tvb(HEADER + 32, 1):uint()] or "?") end
    rma = string.format(" disp=%d", disp)
  end
  -- A message above 1 MiB goes as pieces: a data message carries one
  -- (payload of msg_len), a piece ack says how much has arrived.
  local size = string.format("%d B", mlen)
  if kind == 4 and plen < mlen then size = string.format("%d of %d B", plen, mlen) end
  if kind == 7 then size = string.format("%d B received", mlen) end
  local info = string.format("MPI %s %d→%d tag=%d comm=%s %s",
    short_kinds[kind] or ("kind " .. kind), src, dst, tag, comm_name(ctx), size)
  if kind >= 10 then
    -- A window's messages travel on its hidden communicator's context.
    local what = short_kinds[kind] or ("kind " .. kind)
    if kind == 15 or kind == 16 then
      if tag ~= 0 then what = what .. " error " .. tag end
      if kind == 16 then size = string.format("%d B", plen) end
    end
    if kind == 15 or kind >= 17 then size = "" end
    if kind == 19 then size = (tag == 1) and "exclusive" or "shared" end
    info = string.format("MPI %s%s %d→%d win=%d%s %s", what, op, src, dst, ctx, rma, size)
  end
  local call = calls[tvb(4, 1):uint()]
  if call and call ~= "other" then info = info .. " (" .. call .. ")" end
  pinfo.cols.protocol = "MPINETSIM"
  local prev = tostring(pinfo.cols.info)
  if prev:find("MPI ", 1, true) then
    pinfo.cols.info:append(" | " .. info)
  else
    pinfo.cols.info = info
  end
  return HEADER + plen
end

function p.dissector(tvb, pinfo, tree)
  dissect_tcp_pdus(tvb, tree, HEADER, pdu_len, dissect_one, true)
end

local tcp = DissectorTable.get("tcp.port")
tcp:add("35000-41999", p)
tcp:add("50000-56999", p)
