//! The messages between a rank and a storage node (`[[storage]]` in the
//! network file): a rank's file access becomes a request to the node's
//! endpoint, which the gateway's storage model answers with a reply after
//! the node's service time. A request starts with [`HEADER_LEN`] bytes of
//! header, followed by a write's data; the reply repeats the header,
//! followed by a read's data. The data stand for the file's bytes for the
//! network's sake: the rank reads and writes the real file itself.

/// The environment variable by which the launcher tells a rank the
/// storage node's endpoint number (the ranks' file accesses go to it).
pub const ENV_STORAGE_ENDPOINT: &str = "MPINETSIM_STORAGE_ENDPOINT";

/// Whether a request reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StorageOp {
    /// Bytes go from the file to the rank (the reply carries them).
    Read,
    /// Bytes go from the rank to the file (the request carries them).
    Write,
}

/// One file access of a rank, as its request message starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageRequest {
    /// Read or write.
    pub op: StorageOp,
    /// The rank's number for it, echoed in the reply.
    pub id: u64,
    /// File offset, bytes.
    pub offset: u64,
    /// Bytes accessed.
    pub len: u64,
}

/// Bytes of a request's or reply's header: a magic byte, the op, the id,
/// the offset and the length.
pub const HEADER_LEN: usize = 1 + 1 + 8 + 8 + 8;

const MAGIC: u8 = 0x5a;

impl StorageRequest {
    /// The header bytes; a write's data follows them in the message, a
    /// read's in its reply.
    pub fn encode(&self) -> Vec<u8> {
        let mut b = Vec::with_capacity(HEADER_LEN);
        b.push(MAGIC);
        b.push(match self.op {
            StorageOp::Read => 0,
            StorageOp::Write => 1,
        });
        b.extend_from_slice(&self.id.to_le_bytes());
        b.extend_from_slice(&self.offset.to_le_bytes());
        b.extend_from_slice(&self.len.to_le_bytes());
        b
    }

    /// Reads a header (of a request or a reply); None when `b` is not one.
    pub fn decode(b: &[u8]) -> Option<StorageRequest> {
        if b.len() < HEADER_LEN || b[0] != MAGIC {
            return None;
        }
        let op = match b[1] {
            0 => StorageOp::Read,
            1 => StorageOp::Write,
            _ => return None,
        };
        let u = |at: usize| u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"));
        Some(StorageRequest {
            op,
            id: u(2),
            offset: u(10),
            len: u(18),
        })
    }

    /// Bytes of the request message: the header, and a write's data.
    pub fn request_len(&self) -> u64 {
        HEADER_LEN as u64
            + match self.op {
                StorageOp::Write => self.len,
                StorageOp::Read => 0,
            }
    }

    /// Bytes of the reply message: the header, and a read's data.
    pub fn reply_len(&self) -> u64 {
        HEADER_LEN as u64
            + match self.op {
                StorageOp::Read => self.len,
                StorageOp::Write => 0,
            }
    }

    /// The reply message: the request's header (so the rank knows which
    /// request it answers), then for a read `len` bytes standing for the
    /// data (the rank reads the real bytes from its file system).
    pub fn reply(&self) -> Vec<u8> {
        let mut b = self.encode();
        b.resize(self.reply_len() as usize, 0);
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_round_trip_and_replies_carry_read_data() {
        let r = StorageRequest {
            op: StorageOp::Read,
            id: u64::MAX - 3,
            offset: 1 << 40,
            len: 12345,
        };
        assert_eq!(StorageRequest::decode(&r.encode()), Some(r));
        assert_eq!(r.request_len(), HEADER_LEN as u64);
        assert_eq!(r.reply().len(), HEADER_LEN + 12345);
        assert_eq!(StorageRequest::decode(&r.reply()), Some(r));
        let w = StorageRequest {
            op: StorageOp::Write,
            id: 7,
            offset: 5,
            len: 10,
        };
        assert_eq!(w.request_len(), HEADER_LEN as u64 + 10);
        assert_eq!(w.reply().len(), HEADER_LEN);
        assert_eq!(StorageRequest::decode(b"not a request at all......"), None);
    }
}
