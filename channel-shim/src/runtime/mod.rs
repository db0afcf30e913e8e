//! The process-wide runtime: the connection to the gateway, scaled real
//! time, and the time-factor sleep accounting around MPI calls.
