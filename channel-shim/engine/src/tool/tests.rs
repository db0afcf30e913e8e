use super::*;

fn ready() -> ToolInterface {
    let mut t = ToolInterface::default();
    assert_eq!(t.init(3), 3);
    t
}

fn idx(t: &ToolInterface, name: &str) -> i32 {
    t.catalogue()
        .pvars
        .iter()
        .position(|p| p.name == name)
        .unwrap() as i32
}

fn with_sent(sent: u64, unexpected_len: u64) -> Readings {
    let mut r = Readings {
        unexpected_len,
        ..Readings::default()
    };
    r.counters.messages_sent = sent;
    r
}

#[test]
fn nothing_works_before_init_or_after_the_last_finalize() {
    let mut t = ToolInterface::default();
    assert_eq!(t.pvar_num(), Err(ToolError::NotInitialized));
    assert_eq!(t.finalize(), Err(ToolError::NotInitialized));
    t.init(0);
    t.init(1);
    let s = t.session_create().unwrap();
    t.finalize().unwrap();
    // Still initialized once: the session lives.
    assert!(t.is_initialized());
    t.pvar_handle_alloc(s, 0).unwrap();
    t.finalize().unwrap();
    assert_eq!(t.cvar_num(), Err(ToolError::NotInitialized));
    assert_eq!(t.session_free(s), Err(ToolError::NotInitialized));
    // A new initialization starts with no sessions.
    t.init(0);
    assert_eq!(t.session_free(s), Err(ToolError::InvalidSession));
}

#[test]
fn indices_names_and_classes() {
    let t = ready();
    let n = t.pvar_num().unwrap() as i32;
    assert_eq!(t.pvar(n).err(), Some(ToolError::InvalidIndex));
    assert_eq!(t.pvar(-1).err(), Some(ToolError::InvalidIndex));
    assert_eq!(
        t.cvar(t.cvar_num().unwrap() as i32).err(),
        Some(ToolError::InvalidIndex)
    );
    assert_eq!(t.category(99).err(), Some(ToolError::InvalidIndex));
    for i in 0..n {
        let p = t.pvar(i).unwrap();
        assert_eq!(t.pvar_index(p.name, Some(p.class)), Ok(i as usize));
        let other = match p.class {
            PvarClass::Level => PvarClass::Counter,
            PvarClass::Counter | PvarClass::HighWatermark => PvarClass::Level,
        };
        assert_eq!(
            t.pvar_index(p.name, Some(other)),
            Err(ToolError::InvalidName)
        );
    }
    assert_eq!(t.cvar_index("NO_SUCH"), Err(ToolError::InvalidName));
    assert_eq!(t.category_index("MPINETSIM_MATCHING"), Ok(1));
    assert_eq!(t.category_index("nope"), Err(ToolError::InvalidName));
    assert_eq!(t.category_changed(), Ok(0));
}

#[test]
fn counters_count_only_while_started_and_from_zero() {
    let mut t = ready();
    let sent = idx(&t, "messages_sent");
    t.observe(with_sent(100, 0));
    let s = t.session_create().unwrap();
    let (h, count) = t.pvar_handle_alloc(s, sent).unwrap();
    assert_eq!(count, 1);
    // Not continuous: stopped at allocation.
    t.observe(with_sent(105, 0));
    assert_eq!(t.pvar_read(s, h), Ok((ValueType::UnsignedLongLong, 0)));
    t.pvar_start(s, HandleSel::One(h)).unwrap();
    t.observe(with_sent(112, 0));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 7);
    t.pvar_stop(s, HandleSel::One(h)).unwrap();
    t.observe(with_sent(150, 0));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 7);
    t.pvar_start(s, HandleSel::All).unwrap();
    t.observe(with_sent(153, 0));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 10);
    // readreset: 10, then counts again from 0.
    assert_eq!(t.pvar_readreset(s, h).unwrap().1, 10);
    t.observe(with_sent(155, 0));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 2);
    t.pvar_write(s, h, 40).unwrap();
    t.observe(with_sent(156, 0));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 41);
    t.pvar_reset(s, HandleSel::All).unwrap();
    assert_eq!(t.pvar_read(s, h).unwrap().1, 0);
}

#[test]
fn sessions_measure_independently() {
    let mut t = ready();
    let sent = idx(&t, "messages_sent");
    let (a, b) = (t.session_create().unwrap(), t.session_create().unwrap());
    let (ha, _) = t.pvar_handle_alloc(a, sent).unwrap();
    let (hb, _) = t.pvar_handle_alloc(b, sent).unwrap();
    t.pvar_start(a, HandleSel::All).unwrap();
    t.observe(with_sent(3, 0));
    t.pvar_start(b, HandleSel::All).unwrap();
    t.observe(with_sent(8, 0));
    assert_eq!(t.pvar_read(a, ha).unwrap().1, 8);
    assert_eq!(t.pvar_read(b, hb).unwrap().1, 5);
    // A handle is only valid in its own session.
    assert_eq!(t.pvar_read(a, hb), Err(ToolError::InvalidHandle));
    assert_eq!(t.pvar_handle_free(b, ha), Err(ToolError::InvalidHandle));
    t.session_free(a).unwrap();
    assert_eq!(t.pvar_read(a, ha), Err(ToolError::InvalidSession));
    assert_eq!(t.pvar_read(b, hb).unwrap().1, 5);
    let mut hb2 = hb;
    t.pvar_handle_free(b, hb2).unwrap();
    assert_eq!(t.pvar_handle_free(b, hb), Err(ToolError::InvalidHandle));
    hb2 += 1000;
    assert_eq!(
        t.pvar_start(b, HandleSel::One(hb2)),
        Err(ToolError::InvalidHandle)
    );
}

#[test]
fn levels_are_continuous_read_only_and_read_the_current_value() {
    let mut t = ready();
    let uq = idx(&t, "unexpected_recvq_length");
    let sent = idx(&t, "messages_sent");
    let s = t.session_create().unwrap();
    t.observe(with_sent(0, 4));
    let (h, _) = t.pvar_handle_alloc(s, uq).unwrap();
    let (c, _) = t.pvar_handle_alloc(s, sent).unwrap();
    assert_eq!(t.pvar_read(s, h).unwrap().1, 4);
    t.observe(with_sent(0, 1));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 1);
    assert_eq!(
        t.pvar_start(s, HandleSel::One(h)),
        Err(ToolError::PvarNoStartStop)
    );
    assert_eq!(
        t.pvar_stop(s, HandleSel::One(h)),
        Err(ToolError::PvarNoStartStop)
    );
    assert_eq!(
        t.pvar_reset(s, HandleSel::One(h)),
        Err(ToolError::PvarNoWrite)
    );
    assert_eq!(t.pvar_write(s, h, 3), Err(ToolError::PvarNoWrite));
    assert_eq!(t.pvar_readreset(s, h), Err(ToolError::PvarNoWrite));
    // All handles: the continuous one is skipped, the counter starts.
    t.pvar_start(s, HandleSel::All).unwrap();
    t.observe(with_sent(2, 1));
    assert_eq!(t.pvar_read(s, c).unwrap().1, 2);
    t.pvar_reset(s, HandleSel::All).unwrap();
    t.pvar_stop(s, HandleSel::All).unwrap();
    assert_eq!(t.pvar_read(s, c).unwrap().1, 0);
    assert_eq!(t.pvar_read(s, h).unwrap().1, 1);
}

#[test]
fn a_variable_that_is_not_atomic_refuses_readreset() {
    let mut cat = Catalogue::standard();
    cat.pvars[7].atomic = false;
    let mut t = ToolInterface::new(cat);
    t.init(0);
    let s = t.session_create().unwrap();
    let (h, _) = t.pvar_handle_alloc(s, 7).unwrap();
    assert_eq!(t.pvar_readreset(s, h), Err(ToolError::PvarNoAtomic));
    t.pvar_reset(s, HandleSel::One(h)).unwrap();
}

#[test]
fn control_variables_read_settings_and_are_never_set() {
    let mut t = ready();
    let i = t.cvar_index("MPINETSIM_EAGER_THRESHOLD").unwrap() as i32;
    let (h, count) = t.cvar_handle_alloc(i).unwrap();
    assert_eq!(count, 1);
    assert_eq!(t.cvar_read(h), Ok((ValueType::UnsignedLongLong, 0)));
    let mut r = Readings::default();
    r.settings.eager_threshold = 65536;
    t.observe(r);
    assert_eq!(t.cvar_read(h).unwrap().1, 65536);
    assert_eq!(t.cvar_write(h), Err(ToolError::CvarSetNever));
    t.cvar_handle_free(h).unwrap();
    assert_eq!(t.cvar_read(h), Err(ToolError::InvalidHandle));
    assert_eq!(t.cvar_handle_free(h), Err(ToolError::InvalidHandle));
    assert_eq!(t.cvar_handle_alloc(-3), Err(ToolError::InvalidIndex));
}

#[test]
fn the_thread_level_enumeration() {
    let t = ready();
    let v = t
        .cvar(t.cvar_index("MPINETSIM_THREAD_LEVEL").unwrap() as i32)
        .unwrap();
    let e = v.enumeration.unwrap();
    assert_eq!(t.enumeration(e).unwrap().items.len(), 4);
    assert_eq!(t.enum_item(e, 3), Ok((3, "MPI_THREAD_MULTIPLE")));
    assert_eq!(t.enum_item(e, 4), Err(ToolError::InvalidIndex));
    assert_eq!(t.enumeration(e + 1).err(), Some(ToolError::InvalidHandle));
}

#[test]
fn no_events_and_no_sources() {
    let mut t = ToolInterface::default();
    assert_eq!(t.event_num(), Err(ToolError::NotInitialized));
    t.init(0);
    assert_eq!(t.event_num(), Ok(0));
    assert_eq!(t.source_num(), Ok(0));
    assert_eq!(t.event(0), Err(ToolError::InvalidIndex));
    assert_eq!(t.source(0), Err(ToolError::InvalidIndex));
    assert_eq!(t.event_index("x"), Err(ToolError::InvalidName));
    assert_eq!(t.event_object(), Err(ToolError::InvalidHandle));
    assert_eq!(t.category_events(0), Ok(vec![]));
    assert_eq!(t.category_events(9), Err(ToolError::InvalidIndex));
}

fn queues(unexpected_len: u64, unexpected_peak: u64) -> Readings {
    Readings {
        unexpected_len,
        unexpected_peak,
        ..Readings::default()
    }
}

/// A high-water mark starts at the level when allocated, follows the peaks
/// while started (and only then), and resets to the current level.
#[test]
fn high_water_marks_follow_the_peaks_while_started() {
    let mut t = ready();
    let wm = idx(&t, "unexpected_recvq_length_highwatermark");
    let s = t.session_create().unwrap();
    let other = t.session_create().unwrap();
    t.observe(queues(3, 3));
    let (h, _) = t.pvar_handle_alloc(s, wm).unwrap();
    assert_eq!(t.pvar_read(s, h).unwrap().1, 3);
    // Not started: a peak of 9 is not seen.
    t.observe(queues(2, 9));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 3);
    t.pvar_start(s, HandleSel::One(h)).unwrap();
    let (h2, _) = t.pvar_handle_alloc(other, wm).unwrap();
    t.pvar_start(other, HandleSel::All).unwrap();
    t.observe(queues(1, 7));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 7);
    t.observe(queues(1, 4));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 7);
    t.pvar_stop(s, HandleSel::One(h)).unwrap();
    t.observe(queues(12, 12));
    assert_eq!(t.pvar_read(s, h).unwrap().1, 7);
    assert_eq!(t.pvar_read(other, h2).unwrap().1, 12);
    // readreset: the mark, then the current level (2), then the peaks.
    t.observe(queues(2, 2));
    assert_eq!(t.pvar_readreset(other, h2).unwrap().1, 12);
    assert_eq!(t.pvar_read(other, h2).unwrap().1, 2);
    t.observe(queues(5, 5));
    assert_eq!(t.pvar_read(other, h2).unwrap().1, 5);
    // A reset of the stopped one: the current level.
    t.pvar_reset(s, HandleSel::All).unwrap();
    assert_eq!(t.pvar_read(s, h).unwrap().1, 5);
}
