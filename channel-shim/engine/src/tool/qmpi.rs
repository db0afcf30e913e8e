//! QMPI, MPICH's interface for stacking tools over MPI calls: the tools a
//! run loads (`MPIR_CVAR_QMPI_TOOL_LIST`, or its alias `QMPI_TOOL_LIST`,
//! names separated by `:`; a name may appear more than once, each
//! appearance being a tool of its own), the functions each one intercepts,
//! and the chain an MPI call follows through them.
//!
//! Tool ids run from 1 in the order of the list; id 0 is MPI itself. A call
//! goes first to the tool of the lowest id that intercepts its function;
//! that tool asks ([`QmpiTools::next`]) for the next one above its own id,
//! and the last one reaches MPI's own implementation (id 0). Functions are
//! named by their number in MPICH's `enum QMPI_Functions_enum`, which
//! [`QmpiFunctions`] reads from the shim's copy of the list.
//!
//! The C layer keeps the pointers tools hand over as plain addresses
//! (`usize`): this module never calls them.

use std::collections::HashMap;

/// Why a QMPI registration was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QmpiError {
    /// `QMPI_Register_tool_name` for a name the tool list does not hold
    /// (or every appearance of which already registered).
    NotListed(String),
    /// A tool id outside 1 ..= the number of tools.
    BadToolId(i32),
    /// A function number outside 0 .. [`QmpiFunctions::count`].
    BadFunction(i32),
}

/// MPICH's QMPI function numbers: line `n` of `qmpi-functions.txt` is the
/// enumerator of number `n` (`MPI_SEND_T`, `MPI_SEND_C_T`, ...).
#[derive(Debug)]
pub struct QmpiFunctions {
    names: Vec<&'static str>,
    number_of: HashMap<String, usize>,
}

impl QmpiFunctions {
    /// The numbers of the enumerators listed one per line in `list`.
    pub fn parse(list: &'static str) -> QmpiFunctions {
        let names: Vec<&'static str> = list.lines().filter(|l| !l.is_empty()).collect();
        let number_of = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), i))
            .collect();
        QmpiFunctions { names, number_of }
    }

    /// How many functions QMPI numbers (MPICH's `MPI_LAST_FUNC_T`).
    pub fn count(&self) -> usize {
        self.names.len()
    }

    /// The number of the C function `name` (`MPI_Send_c` → that of
    /// `MPI_SEND_C_T`), if QMPI numbers it.
    pub fn number(&self, name: &str) -> Option<usize> {
        let key = format!("{}_T", name.to_ascii_uppercase());
        self.number_of.get(&key).copied()
    }

    /// The enumerator of number `n` (`MPI_SEND_T`).
    pub fn enumerator(&self, n: usize) -> Option<&'static str> {
        self.names.get(n).copied()
    }
}

/// The tools of one process and what each intercepts.
#[derive(Debug)]
pub struct QmpiTools {
    /// Index `id`: the name of tool `id` (index 0, MPI itself, is empty).
    names: Vec<String>,
    /// The address of each tool's initialisation function, once registered.
    init: Vec<Option<usize>>,
    /// Each tool's storage pointer (`QMPI_Register_tool_storage`).
    storage: Vec<usize>,
    /// `functions[id * count + n]`: tool `id`'s function for number `n`.
    functions: Vec<Option<usize>>,
    count: usize,
    started: bool,
}

impl QmpiTools {
    /// The tools `list` names (the value of `MPIR_CVAR_QMPI_TOOL_LIST`;
    /// empty names are skipped), for `count` function numbers.
    pub fn new(list: &str, count: usize) -> QmpiTools {
        let names: Vec<String> = std::iter::once(String::new())
            .chain(list.split(':').filter(|n| !n.is_empty()).map(String::from))
            .collect();
        let n = names.len();
        QmpiTools {
            init: vec![None; n],
            storage: vec![0; n],
            functions: vec![None; n * count],
            names,
            count,
            started: false,
        }
    }

    /// How many tools the list loads.
    pub fn len(&self) -> usize {
        self.names.len() - 1
    }

    /// True when the list loads no tool (QMPI costs nothing then).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `QMPI_Register_tool_name`: the initialisation function `init` of
    /// every appearance of `name` in the list that has none yet. With no
    /// tool listed at all, nothing happens and it succeeds, as in MPICH.
    pub fn register_name(&mut self, name: &str, init: usize) -> Result<(), QmpiError> {
        if self.is_empty() {
            return Ok(());
        }
        let mut found = false;
        for id in 1..self.names.len() {
            if self.names[id] == name && self.init[id].is_none() {
                self.init[id] = Some(init);
                found = true;
            }
        }
        if found {
            Ok(())
        } else {
            Err(QmpiError::NotListed(name.to_string()))
        }
    }

    fn tool(&self, id: i32) -> Result<usize, QmpiError> {
        match usize::try_from(id) {
            Ok(i) if (1..self.names.len()).contains(&i) => Ok(i),
            _ => Err(QmpiError::BadToolId(id)),
        }
    }

    fn function(&self, n: i32) -> Result<usize, QmpiError> {
        match usize::try_from(n) {
            Ok(i) if i < self.count => Ok(i),
            _ => Err(QmpiError::BadFunction(n)),
        }
    }

    /// `QMPI_Register_tool_storage`.
    pub fn register_storage(&mut self, id: i32, storage: usize) -> Result<(), QmpiError> {
        let id = self.tool(id)?;
        self.storage[id] = storage;
        Ok(())
    }

    /// `QMPI_Get_tool_storage`: what tool `id` registered (0 if nothing;
    /// MPI itself, id 0, has none).
    pub fn storage(&self, id: i32) -> Result<usize, QmpiError> {
        if id == 0 {
            return Ok(0);
        }
        Ok(self.storage[self.tool(id)?])
    }

    /// `QMPI_Register_function`: tool `id` intercepts function number `n`
    /// with the function at `address`.
    pub fn register_function(&mut self, id: i32, n: i32, address: usize) -> Result<(), QmpiError> {
        let (id, n) = (self.tool(id)?, self.function(n)?);
        self.functions[id * self.count + n] = Some(address);
        Ok(())
    }

    /// The tool that function number `n` reaches after tool `after` (0:
    /// the first of the chain): the lowest id above `after` intercepting
    /// it, with its function; None when MPI's own implementation is next.
    pub fn next(&self, after: i32, n: i32) -> Result<Option<(i32, usize)>, QmpiError> {
        let n = self.function(n)?;
        let from = usize::try_from(after).map_err(|_| QmpiError::BadToolId(after))? + 1;
        Ok((from..self.names.len())
            .find_map(|id| self.functions[id * self.count + n].map(|f| (id as i32, f))))
    }

    /// The initialisation functions to call, in tool order, the first time
    /// they are asked for (the process's first MPI call); afterwards none.
    pub fn start(&mut self) -> Vec<(i32, usize)> {
        if std::mem::replace(&mut self.started, true) {
            return Vec::new();
        }
        (self.init.iter().enumerate())
            .filter_map(|(id, f)| f.map(|f| (id as i32, f)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIST: &str = "MPI_ATTR_DELETE_T\nMPI_SEND_T\nMPI_SEND_C_T\nMPI_RECV_T\n";

    #[test]
    fn numbers_follow_the_list_and_cover_large_count_names() {
        let f = QmpiFunctions::parse(LIST);
        assert_eq!(f.count(), 4);
        assert_eq!(f.number("MPI_Send"), Some(1));
        assert_eq!(f.number("MPI_Send_c"), Some(2));
        assert_eq!(f.number("MPI_Recv"), Some(3));
        assert_eq!(f.number("MPI_Wtime"), None);
        assert_eq!(f.enumerator(3), Some("MPI_RECV_T"));
    }

    #[test]
    fn a_name_listed_twice_is_two_tools_chained_in_list_order() {
        let mut t = QmpiTools::new("count:other:count", 4);
        assert_eq!(t.len(), 3);
        t.register_name("count", 0x100).unwrap();
        assert_eq!(t.register_name("other", 0x200), Ok(()));
        // Both appearances of "count" registered: a third call finds none.
        assert_eq!(
            t.register_name("count", 0x300),
            Err(QmpiError::NotListed("count".into()))
        );
        assert_eq!(t.start(), vec![(1, 0x100), (2, 0x200), (3, 0x100)]);
        assert_eq!(t.start(), vec![], "initialised once");
        // Tools 1 and 3 intercept MPI_Send; tool 2 does not.
        t.register_function(1, 1, 0xa1).unwrap();
        t.register_function(3, 1, 0xa3).unwrap();
        assert_eq!(t.next(0, 1), Ok(Some((1, 0xa1))));
        assert_eq!(t.next(1, 1), Ok(Some((3, 0xa3))));
        assert_eq!(t.next(3, 1), Ok(None), "then MPI itself");
        assert_eq!(t.next(0, 3), Ok(None), "nobody intercepts MPI_Recv");
        t.register_storage(3, 0x5).unwrap();
        assert_eq!(
            (t.storage(3), t.storage(1), t.storage(0)),
            (Ok(5), Ok(0), Ok(0))
        );
    }

    #[test]
    fn out_of_range_ids_and_numbers_are_refused() {
        let mut t = QmpiTools::new("a", 4);
        assert_eq!(t.register_function(2, 0, 1), Err(QmpiError::BadToolId(2)));
        assert_eq!(t.register_function(0, 0, 1), Err(QmpiError::BadToolId(0)));
        assert_eq!(t.register_function(1, 4, 1), Err(QmpiError::BadFunction(4)));
        assert_eq!(
            t.register_function(1, -1, 1),
            Err(QmpiError::BadFunction(-1))
        );
        assert_eq!(t.next(-1, 0), Err(QmpiError::BadToolId(-1)));
        assert_eq!(t.storage(7), Err(QmpiError::BadToolId(7)));
    }

    #[test]
    fn without_a_list_registration_succeeds_and_loads_nothing() {
        let mut t = QmpiTools::new("", 4);
        assert!(t.is_empty());
        assert_eq!(t.register_name("anything", 1), Ok(()));
        assert_eq!(t.start(), vec![]);
    }
}
