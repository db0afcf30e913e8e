//! Functions the C layer registers with MPI objects (attribute copy and
//! delete callbacks, error handler functions, generalized-request
//! callbacks): the engine keeps them with the object, tells the C layer
//! when to call which one with which values, and never calls them itself
//! (they are C functions, and they must run without the engine's lock held
//! because they may call MPI).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A value the C layer stored with an object, returned to it as is.
#[derive(Clone)]
pub struct Opaque(Arc<dyn Any + Send + Sync>);

impl Opaque {
    /// Wraps `value`.
    pub fn new<V: Any + Send + Sync>(value: V) -> Opaque {
        Opaque(Arc::new(value))
    }

    /// The value, if it is a `V`.
    pub fn get<V: Any>(&self) -> Option<&V> {
        self.0.downcast_ref::<V>()
    }
}

impl fmt::Debug for Opaque {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Opaque(..)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_back_what_was_stored_and_only_as_its_type() {
        let o = Opaque::new((7u32, "x"));
        assert_eq!(o.get::<(u32, &str)>(), Some(&(7, "x")));
        assert_eq!(o.get::<u32>(), None);
        let copy = o.clone();
        assert_eq!(copy.get::<(u32, &str)>().unwrap().0, 7);
    }
}
