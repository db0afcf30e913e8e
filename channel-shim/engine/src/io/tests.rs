//! MPI-IO over the in-memory network on 1..=4 ranks, with real files in
//! a private temporary folder: every expected byte is computed here from
//! the pattern the ranks wrote.

use super::access::Position;
use super::amode::{CREATE, DELETE_ON_CLOSE, EXCL, RDONLY, RDWR, WRONLY};
use super::open::Whence;
use crate::comm::CommId;
use crate::datatype::{BuiltinType as B, DatatypeId, FileSizes};
use crate::error::MpiError;
use crate::mem_transport::run_world;
use std::path::PathBuf;

const W: CommId = CommId::WORLD;
const INT: DatatypeId = DatatypeId::Builtin(B::Int);
const BYTE: DatatypeId = DatatypeId::Builtin(B::Byte);

/// A fresh private folder for one test.
fn folder(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("shim-io-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn ints(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_ne_bytes()).collect()
}

fn to_ints(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
        .collect()
}

fn file_ints(p: &PathBuf) -> Vec<i32> {
    to_ints(&std::fs::read(p).unwrap())
}

#[test]
fn collective_strided_writes_interleave_ranks_and_read_back() {
    let dir = folder("strided");
    let path = dir.join("f");
    for n in 1..=4u32 {
        let p = path.to_str().unwrap().to_string();
        run_world(n, 1 << 20, |e| {
            let me = e.rank() as i64;
            let f = e.file_open(W, &p, RDWR | CREATE, vec![]).unwrap();
            // Rank r sees int r of every n: a one-int filetype resized to
            // n ints, at displacement 4r.
            let ft = e.datatypes_mut().resized(INT, 0, 4 * n as i64).unwrap();
            e.datatypes_mut().commit(ft).unwrap();
            e.file_set_view(f, 4 * me, INT, ft, "native", Ok(&FileSizes::new()))
                .unwrap();
            let mine: Vec<i32> = (0..5).map(|k| 100 * me as i32 + k).collect();
            let w = e
                .file_write_all(f, Position::At(0), &ints(mine.clone()), 5, INT)
                .unwrap();
            assert_eq!(w, 20);
            let mut back = vec![0u8; 20];
            let r = e
                .file_read_all(f, Position::At(0), &mut back, 5, INT)
                .unwrap();
            assert_eq!((r, to_ints(&back)), (20, mine));
            e.file_close(f).unwrap();
        });
        let want: Vec<i32> = (0..5)
            .flat_map(|k| (0..n as i32).map(move |r| 100 * r + k))
            .collect();
        assert_eq!(file_ints(&path), want, "n={n}");
        std::fs::remove_file(&path).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ordered_and_shared_writes_fill_the_file_without_gaps() {
    let dir = folder("shared");
    let path = dir.join("f");
    let p = path.to_str().unwrap().to_string();
    let n = 3u32;
    run_world(n, 1 << 20, |e| {
        let me = e.rank() as i32;
        let f = e.file_open(W, &p, WRONLY | CREATE, vec![]).unwrap();
        e.file_set_view(f, 0, INT, INT, "native", Ok(&FileSizes::new()))
            .unwrap();
        // Ordered: rank r writes r+1 ints, in rank order.
        let mine = vec![me; me as usize + 1];
        e.file_write_ordered(f, &ints(mine), me as usize + 1, INT)
            .unwrap();
        e.barrier(W).unwrap();
        assert_eq!(e.file_position_shared(f).unwrap(), 6);
        // Everyone has read the pointer before anyone moves it again.
        e.barrier(W).unwrap();
        // Shared: each rank appends two ints, in some order.
        e.file_write_shared(f, &ints([10 + me, 10 + me]), 2, INT)
            .unwrap();
        e.barrier(W).unwrap();
        assert_eq!(e.file_position_shared(f).unwrap(), 12);
        e.file_close(f).unwrap();
    });
    let got = file_ints(&path);
    assert_eq!(&got[..6], &[0, 1, 1, 2, 2, 2]);
    let mut tail: Vec<i32> = got[6..].to_vec();
    tail.sort();
    assert_eq!(tail, vec![10, 10, 11, 11, 12, 12]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn open_modes_exclusive_delete_on_close_and_errors() {
    let dir = folder("modes");
    let path = dir.join("f");
    let p = path.to_str().unwrap().to_string();
    run_world(2, 1 << 20, |e| {
        let missing = e.file_open(W, &p, RDONLY, vec![]);
        assert_eq!(
            missing.unwrap_err(),
            MpiError::Code(super::amode::ERR_NO_SUCH_FILE)
        );
        let f = e.file_open(W, &p, RDWR | CREATE | EXCL, vec![]).unwrap();
        e.file_close(f).unwrap();
        let again = e.file_open(W, &p, RDWR | CREATE | EXCL, vec![]);
        assert_eq!(
            again.unwrap_err(),
            MpiError::Code(super::amode::ERR_FILE_EXISTS)
        );
        let bad = e.file_open(W, &p, RDONLY | WRONLY, vec![]);
        assert_eq!(bad.unwrap_err(), MpiError::Code(super::amode::ERR_AMODE));
        let f = e.file_open(W, &p, RDWR | DELETE_ON_CLOSE, vec![]).unwrap();
        e.file_set_size(f, 100).unwrap();
        assert_eq!(e.file_size(f).unwrap(), 100);
        e.file_preallocate(f, 50).unwrap();
        assert_eq!(e.file_size(f).unwrap(), 100);
        e.file_seek(f, -10, Whence::End).unwrap();
        assert_eq!(e.file_position(f).unwrap(), 90);
        let mut b = vec![0u8; 20];
        assert_eq!(
            e.file_read(f, Position::Individual, &mut b, 20, BYTE)
                .unwrap(),
            10
        );
        assert_eq!(e.file_position(f).unwrap(), 100);
        e.file_close(f).unwrap();
    });
    assert!(!path.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
