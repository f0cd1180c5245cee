//! Schedule readers: the three formats of [`writers`](super::writers) back.
//!
//! Expanded formats stream: copyspace-guard JSON is parsed tick by tick
//! with a serde visitor (one tick in memory at a time), CSV line by line.
//! Compact JSON (version 1, or version 2 with its classes: rounds over
//! local slots and each member's slots, turned into
//! [`ClassRounds`] by [`CompactFile::to_schedule`]) is read whole,
//! straight into typed rounds (the value-tree reader only runs to name the
//! field of an error). Readers do not
//! judge the schedule (that is the validator's job); they only refuse what
//! cannot be read at all, with the line and field.
//!
//! Every JSON object is read strictly: a repeated key (two `"ticks"`, two
//! `"len_bits"` in one chunk) is refused with its line and key, since
//! readers that keep different copies reach opposite verdicts. A leading
//! UTF-8 byte-order mark is skipped in every format. A gap between tick
//! numbers in a CSV schedule is passed on as one run of empty ticks, so a
//! one-line file at tick 10^12 costs O(1).

use super::writers::{COMPACT_FORMAT_TAG, COMPACT_FORMAT_TAG_V2};
use super::{ClassRounds, Round, Schedule};
use crate::instance::csv_cells::{is_skippable, parse_uint, split_cells};
use crate::instance::json_strict::{
    duplicate_key, json_error, parse_json_value, value_as_uint, StrictIgnore, StrictValue, UTF8_BOM,
};
use crate::instance::{InputError, Instance, Model};
use crate::validate::{ErrorKind, RawChunk, Report, TickValidator};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Rounds as a compact file lists them: repeat and `[src, dst]` pairs.
pub type CompactRounds = Vec<(u64, Vec<(u64, u64)>)>;

/// A compact schedule file, before its pairs are matched to demands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactFile {
    pub model: Model,
    pub rounds: CompactRounds,
    /// Version 2's classes (none in version 1).
    pub classes: Vec<CompactClass>,
}

/// A class of a version-2 compact file: rounds over local slots `0..k`
/// stored once, and each member's `k` slots (local slot `v` is the
/// member's `members[m][v]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactClass {
    pub members: Vec<Vec<u64>>,
    pub rounds: CompactRounds,
}

impl CompactFile {
    /// Maps pairs to demand indices. Errors list a pair the instance lacks.
    pub fn to_schedule(&self, inst: &Instance) -> Result<Schedule, InputError> {
        self.to_schedule_kind(inst).map_err(|(_, e)| e)
    }

    /// [`CompactFile::to_schedule`], with the kind of error the validator
    /// reports for a refusal: `EXTRAS` for a pair that is not a demand,
    /// `STRUCT` for a class that is malformed (members of different
    /// lengths, a local slot past them).
    fn to_schedule_kind(&self, inst: &Instance) -> Result<Schedule, (ErrorKind, InputError)> {
        let mut s = Schedule::new();
        s.rounds = self
            .plain_rounds(inst)
            .map_err(|e| (ErrorKind::Extras, e))?;
        for (c, class) in self.classes.iter().enumerate() {
            s.classes.push(class_rounds(inst, c, class)?);
        }
        Ok(s)
    }

    fn plain_rounds(&self, inst: &Instance) -> Result<Vec<Round>, InputError> {
        let mut s = Vec::with_capacity(self.rounds.len());
        for (ri, (repeat, pairs)) in self.rounds.iter().enumerate() {
            let mut idx = Vec::with_capacity(pairs.len());
            for &(a, b) in pairs {
                let i = u32::try_from(a)
                    .ok()
                    .zip(u32::try_from(b).ok())
                    .and_then(|(a, b)| inst.demand_index(a, b))
                    .ok_or_else(|| {
                        InputError::field(
                            &format!("rounds[{ri}].pairs"),
                            format!("pair {a}->{b} is not a demand"),
                        )
                    })?;
                idx.push(i as u32);
            }
            // Keep rounds as written (no merging), so round numbers in
            // messages match the file.
            idx.sort_unstable();
            s.push(Round {
                repeat: *repeat,
                demands: idx,
            });
        }
        Ok(s)
    }
}

/// A version-2 class read into [`ClassRounds`]: its pattern is the
/// distinct local pairs of its rounds (ascending), and each member's map
/// sends pattern pair `(a, b)` to the demand between its slots `a` and
/// `b`. O(the class's entries + members x pattern); whether the maps make
/// a schedule is the validator's to judge.
fn class_rounds(
    inst: &Instance,
    c: usize,
    class: &CompactClass,
) -> Result<ClassRounds, (ErrorKind, InputError)> {
    let k = class.members.first().map_or(0, Vec::len);
    let structural =
        |field: String, msg: String| (ErrorKind::Struct, InputError::field(&field, msg));
    if class.members.is_empty() {
        return Err(structural(
            format!("classes[{c}].members"),
            "no members".into(),
        ));
    }
    if let Some(m) = class.members.iter().position(|s| s.len() != k) {
        return Err(structural(
            format!("classes[{c}].members[{m}]"),
            format!("{} slots where member 0 has {k}", class.members[m].len()),
        ));
    }
    let mut pattern: Vec<(u64, u64)> = Vec::new();
    for (ri, (_, pairs)) in class.rounds.iter().enumerate() {
        for (i, &(a, b)) in pairs.iter().enumerate() {
            if a >= k as u64 || b >= k as u64 {
                return Err(structural(
                    format!("classes[{c}].rounds[{ri}].pairs[{i}]"),
                    format!("local slots {a}->{b}: the members have {k} slots (0..{k})"),
                ));
            }
            pattern.push((a, b));
        }
    }
    pattern.sort_unstable();
    pattern.dedup();
    let rounds = class
        .rounds
        .iter()
        .map(|(repeat, pairs)| {
            let mut demands: Vec<u32> = pairs
                .iter()
                .map(|p| pattern.binary_search(p).expect("in the pattern") as u32)
                .collect();
            demands.sort_unstable();
            Round {
                repeat: *repeat,
                demands,
            }
        })
        .collect();
    let mut members = Vec::with_capacity(class.members.len());
    for (m, slots) in class.members.iter().enumerate() {
        let mut map = Vec::with_capacity(pattern.len());
        for &(a, b) in &pattern {
            let (x, y) = (slots[a as usize], slots[b as usize]);
            let i = u32::try_from(x)
                .ok()
                .zip(u32::try_from(y).ok())
                .and_then(|(x, y)| inst.demand_index(x, y))
                .ok_or_else(|| {
                    (
                        ErrorKind::Extras,
                        InputError::field(
                            &format!("classes[{c}].members[{m}]"),
                            format!("pair {x}->{y} (local {a}->{b}) is not a demand"),
                        ),
                    )
                })?;
            map.push(i as u32);
        }
        members.push(map);
    }
    Ok(ClassRounds { rounds, members })
}

/// What a schedule file holds.
pub enum ScheduleInput {
    Compact(CompactFile),
    /// An MSCCL algorithm (XML): its ticks by dependency levels, one pair
    /// per chunk ([`crate::interop::msccl_xml`]). It states no model: it is
    /// judged under the instance's.
    Levels(ProgramLevels),
    /// An expanded schedule (JSON or CSV); read it with [`stream_schedule_file`].
    Expanded,
}

/// An MSCCL program read as a schedule: its dependency levels and what it
/// moves, hop by hop and end to end.
pub struct ProgramLevels {
    /// One pair per chunk per level.
    pub ticks: Vec<Vec<(u64, u64)>>,
    /// Chunks per (src, dst) of its transfers.
    pub hops: BTreeMap<(u32, u32), u64>,
    /// Chunks per (src, dst) from the gpu where they start to the gpu whose
    /// output buffer ends up holding them.
    pub end_to_end: BTreeMap<(u32, u32), u64>,
}

impl ProgramLevels {
    /// The instance its levels are judged against: `inst` itself, or, when
    /// `inst` is the collective the program implements (its end-to-end
    /// chunks) and the program relays, `inst`'s model, bandwidth and ports
    /// over the program's hops. So a relaying program is valid for its
    /// collective when it delivers exactly the collective's chunks and
    /// every level fits the model.
    pub fn judged_against(&self, inst: &Instance) -> Result<Option<Instance>, InputError> {
        let counts: BTreeMap<(u32, u32), u64> = (0..inst.demands().len())
            .map(|k| {
                (
                    (inst.demands()[k].src, inst.demands()[k].dst),
                    inst.chunks(k),
                )
            })
            .collect();
        if inst.has_demand_bw() || counts != self.end_to_end || counts == self.hops {
            return Ok(None);
        }
        let demands = self
            .hops
            .iter()
            .map(|(&(src, dst), &c)| {
                let bits = c.checked_mul(inst.bw).ok_or_else(|| {
                    InputError::new(format!("{c} chunks of {} bits overflow", inst.bw))
                })?;
                Ok((crate::instance::Demand { src, dst, bits }, None))
            })
            .collect::<Result<Vec<_>, InputError>>()?;
        let limits = crate::instance::Limits::default();
        crate::instance::Instance::new_multiport(
            inst.model,
            inst.slots,
            inst.bw,
            demands,
            inst.ports().clone(),
            &limits,
        )
        .map(Some)
    }
}

/// The first bytes of a file (up to 4096; fewer only at its end), without
/// a byte-order mark.
fn head(path: &Path) -> Result<Vec<u8>, InputError> {
    let mut buf = Vec::with_capacity(4096);
    open(path)?
        .take(4096)
        .read_to_end(&mut buf)
        .map_err(|e| io_err(path, e))?;
    if buf.starts_with(UTF8_BOM) {
        buf.drain(..UTF8_BOM.len());
    }
    Ok(buf)
}

/// Which format a file is, from its first non-blank byte.
pub fn sniff(path: &Path) -> Result<Option<u8>, InputError> {
    Ok(first_byte(&head(path)?))
}

fn first_byte(head: &[u8]) -> Option<u8> {
    head.iter().copied().find(|b| !b.is_ascii_whitespace())
}

/// Whether a file's first bytes hold the compact format's tag as the
/// writer puts it (`"format":"tickopt-compact-v1"`, or `-v2`).
fn opens_as_compact(head: &[u8]) -> bool {
    [COMPACT_FORMAT_TAG, COMPACT_FORMAT_TAG_V2].iter().any(|t| {
        let tag = format!("\"format\":\"{t}\"");
        head.windows(tag.len()).any(|w| w == tag.as_bytes())
    })
}

fn open(path: &Path) -> Result<std::fs::File, InputError> {
    std::fs::File::open(path).map_err(|e| io_err(path, e))
}

pub(crate) fn io_err(path: &Path, e: std::io::Error) -> InputError {
    InputError::new(format!("cannot read: {e}")).in_file(path.display().to_string())
}

/// Reads a schedule file: compact files whole; expanded ones are only
/// recognised here (and streamed later). The format is decided by
/// structure alone ([`json_shape`]), never by a string inside the file.
/// An MSCCL algorithm (XML) is refused: `interop::read_schedule_file`
/// picks its reader (the interop layer's) or this one.
/// (A file that opens as tickopt writes compact schedules, its format tag
/// in the first 4 KiB, is read into memory once, and its rounds and
/// structure in one pass there, several times faster than a reader's
/// pass and a second one; the tag only chooses how to read, not what the
/// file is.)
pub fn read_schedule_file(path: &Path) -> Result<ScheduleInput, InputError> {
    let name = || path.display().to_string();
    let head = head(path)?;
    match first_byte(&head) {
        Some(b'{') => {}
        Some(b'<') => {
            return Err(InputError::new(
                "an MSCCL algorithm (XML) is read by the interop layer, not as a schedule file",
            )
            .in_file(name()))
        }
        _ => return Ok(ScheduleInput::Expanded), // CSV
    }
    if opens_as_compact(&head) {
        let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
        // One pass reads the rounds and the shape together; anything else
        // (or an error to word) is checked as below.
        if let Some((shape, file)) = parse_compact_fast(&bytes) {
            if let Ok(JsonFormat::Compact) = shape.format() {
                return Ok(ScheduleInput::Compact(file));
            }
        }
        let body = bytes.strip_prefix(UTF8_BOM).unwrap_or(&bytes);
        let shape = json_shape_of_slice(body).map_err(|e| e.in_file(name()))?;
        return match shape.format().map_err(|e| e.in_file(name()))? {
            JsonFormat::Expanded => Ok(ScheduleInput::Expanded),
            JsonFormat::Compact => parse_compact(&bytes)
                .map(ScheduleInput::Compact)
                .map_err(|e| e.in_file(name())),
        };
    }
    let mut reader = BufReader::with_capacity(1 << 16, open(path)?);
    skip_bom(&mut reader).map_err(|e| io_err(path, e))?;
    let shape = json_shape(reader).map_err(|e| e.in_file(name()))?;
    match shape.format().map_err(|e| e.in_file(name()))? {
        JsonFormat::Expanded => Ok(ScheduleInput::Expanded),
        JsonFormat::Compact => {
            let bytes = std::fs::read(path).map_err(|e| io_err(path, e))?;
            parse_compact(&bytes)
                .map(ScheduleInput::Compact)
                .map_err(|e| e.in_file(name()))
        }
    }
}

/// The two JSON schedule formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JsonFormat {
    /// copyspace-guard's `{"version", "model", "ticks": [...]}`.
    Expanded,
    /// tickopt's `{"format": "tickopt-compact-v1", "model", "rounds"}` (or
    /// `-v2`, with `classes` too).
    Compact,
}

/// The top level of a JSON schedule: its keys (in file order), whether
/// `format` is the compact tag, and whether `ticks` is an array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonShape {
    pub keys: Vec<String>,
    /// `format` is a compact tag, of either version.
    pub compact_tag: bool,
    /// `format` is version 2's tag (rounds and classes).
    pub compact_v2: bool,
    pub ticks_array: bool,
}

impl JsonShape {
    /// Notes whether the `format` value `v` is a compact tag, and which.
    fn read_tag(&mut self, v: &Value) {
        self.compact_v2 = v.as_str() == Some(COMPACT_FORMAT_TAG_V2);
        self.compact_tag = self.compact_v2 || v.as_str() == Some(COMPACT_FORMAT_TAG);
    }

    /// Compact iff `"format"` is a compact tag (`"tickopt-compact-v1"` or
    /// `"tickopt-compact-v2"`) and `rounds`; expanded
    /// iff `ticks` is an array; both or neither is refused, naming the
    /// keys found. Other keys (notes, metadata) do not matter.
    pub fn format(&self) -> Result<JsonFormat, InputError> {
        let compact = self.compact_tag && self.keys.iter().any(|k| k == "rounds");
        match (compact, self.ticks_array) {
            (true, false) => Ok(JsonFormat::Compact),
            (false, true) => Ok(JsonFormat::Expanded),
            (both, _) => {
                let keys = if self.keys.is_empty() {
                    "none".to_string()
                } else {
                    self.keys.join(", ")
                };
                let why = if both {
                    "it is both a compact schedule (\"format\": \"tickopt-compact-v1\" or \"tickopt-compact-v2\", with \"rounds\") and an expanded one (\"ticks\" array)"
                } else {
                    "it is neither an expanded schedule (a \"ticks\" array) nor a compact one (\"format\": \"tickopt-compact-v1\" or \"tickopt-compact-v2\", with \"rounds\")"
                };
                Err(InputError::new(format!(
                    "not a schedule: {why}; top-level keys found: {keys}"
                )))
            }
        }
    }
}

/// Reads the top level of a JSON document (values skipped, duplicate keys
/// refused at any depth) into a [`JsonShape`].
pub fn json_shape(reader: impl Read) -> Result<JsonShape, InputError> {
    shape_of(serde_json::Deserializer::from_reader(reader))
}

/// [`json_shape`] of a document in memory (several times faster than
/// through a reader).
fn json_shape_of_slice(bytes: &[u8]) -> Result<JsonShape, InputError> {
    shape_of(serde_json::Deserializer::from_slice(bytes))
}

fn shape_of<'de, R: serde_json::de::Read<'de>>(
    mut de: serde_json::Deserializer<R>,
) -> Result<JsonShape, InputError> {
    struct ShapeVisitor;
    impl<'de> Visitor<'de> for ShapeVisitor {
        type Value = JsonShape;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a schedule JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<JsonShape, A::Error> {
            let mut shape = JsonShape::default();
            while let Some(key) = map.next_key::<String>()? {
                if shape.keys.contains(&key) {
                    return Err(duplicate_key(&key));
                }
                match key.as_str() {
                    "format" => shape.read_tag(&map.next_value::<StrictValue>()?.0),
                    "ticks" => shape.ticks_array = map.next_value::<IsArray>()?.0,
                    _ => {
                        map.next_value::<StrictIgnore>()?;
                    }
                }
                shape.keys.push(key);
            }
            Ok(shape)
        }
    }
    let shape = de
        .deserialize_map(ShapeVisitor)
        .map_err(|e| json_error(&e, "invalid schedule JSON"))?;
    de.end().map_err(|e| {
        InputError::new(format!("trailing data after schedule JSON: {e}")).at_line(e.line() as u64)
    })?;
    Ok(shape)
}

/// Parses compact schedule JSON.
pub fn parse_compact(bytes: &[u8]) -> Result<CompactFile, InputError> {
    // Fast path: straight into typed rounds, no value tree (a 20 M-pair
    // schedule took 33 s and 4 GB through the tree). Any failure falls
    // through to the tree reader, whose errors name the field.
    if let Some((_, file)) = parse_compact_fast(bytes) {
        return Ok(file);
    }
    let v = parse_json_value(bytes)?;
    let model = v
        .get("model")
        .and_then(Value::as_str)
        .ok_or_else(|| InputError::field("model", "missing"))?
        .parse::<Model>()
        .map_err(|e| InputError::field("model", e.to_string()))?;
    let rounds = rounds_of_value(v.get("rounds"), "rounds")?;
    let classes = if v.get("format").and_then(Value::as_str) == Some(COMPACT_FORMAT_TAG_V2) {
        classes_of_value(v.get("classes"))?
    } else {
        Vec::new()
    };
    Ok(CompactFile {
        model,
        rounds,
        classes,
    })
}

/// Version 2's classes read from a value tree, errors naming the field.
fn classes_of_value(classes_v: Option<&Value>) -> Result<Vec<CompactClass>, InputError> {
    let classes_v = classes_v
        .and_then(Value::as_array)
        .ok_or_else(|| InputError::field("classes", "missing array (format version 2)"))?;
    let mut classes = Vec::with_capacity(classes_v.len());
    for (c, class) in classes_v.iter().enumerate() {
        let p = format!("classes[{c}]");
        let members_v = class
            .get("members")
            .and_then(Value::as_array)
            .ok_or_else(|| InputError::field(&format!("{p}.members"), "missing array"))?;
        let mut members = Vec::with_capacity(members_v.len());
        for (m, slots_v) in members_v.iter().enumerate() {
            let pm = format!("{p}.members[{m}]");
            let slots = slots_v
                .as_array()
                .ok_or_else(|| InputError::field(&pm, "expected an array of slots"))?
                .iter()
                .map(|x| x.as_u64().map_or_else(|| value_as_uint(x, &pm), Ok))
                .collect::<Result<Vec<u64>, InputError>>()?;
            members.push(slots);
        }
        let rounds = rounds_of_value(class.get("rounds"), &format!("{p}.rounds"))?;
        classes.push(CompactClass { members, rounds });
    }
    Ok(classes)
}

/// Compact rounds read from a value tree, errors naming the field under
/// `path` (`rounds`, `classes[0].rounds`).
fn rounds_of_value(rounds_v: Option<&Value>, path: &str) -> Result<CompactRounds, InputError> {
    let rounds_v = rounds_v
        .and_then(Value::as_array)
        .ok_or_else(|| InputError::field(path, "missing array"))?;
    let mut rounds = Vec::with_capacity(rounds_v.len());
    for (ri, r) in rounds_v.iter().enumerate() {
        let p = format!("{path}[{ri}]");
        let repeat = value_as_uint(
            r.get("repeat").unwrap_or(&Value::Null),
            &format!("{p}.repeat"),
        )?;
        let pairs_v = r
            .get("pairs")
            .and_then(Value::as_array)
            .ok_or_else(|| InputError::field(&format!("{p}.pairs"), "missing array"))?;
        let mut pairs = Vec::with_capacity(pairs_v.len());
        for (k, pv) in pairs_v.iter().enumerate() {
            // The path is formatted only for an error (millions of pairs).
            let pp = || format!("{p}.pairs[{k}]");
            let a = pv
                .as_array()
                .filter(|a| a.len() == 2)
                .ok_or_else(|| InputError::field(&pp(), "expected [src_slot, dst_slot]"))?;
            let uint = |v: &Value| match v.as_u64() {
                Some(x) => Ok(x),
                None => value_as_uint(v, &pp()),
            };
            pairs.push((uint(&a[0])?, uint(&a[1])?));
        }
        rounds.push((repeat, pairs));
    }
    Ok(rounds)
}

/// Whether a value is an array (its elements skipped strictly).
struct IsArray(bool);
impl<'de> serde::Deserialize<'de> for IsArray {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IsArray;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IsArray, A::Error> {
                while seq.next_element::<StrictIgnore>()?.is_some() {}
                Ok(IsArray(true))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<IsArray, A::Error> {
                <StrictIgnore as serde::Deserialize>::deserialize(
                    serde::de::value::MapAccessDeserializer::new(map),
                )?;
                Ok(IsArray(false))
            }
            fn visit_bool<E>(self, _: bool) -> Result<IsArray, E> {
                Ok(IsArray(false))
            }
            fn visit_i64<E>(self, _: i64) -> Result<IsArray, E> {
                Ok(IsArray(false))
            }
            fn visit_u64<E>(self, _: u64) -> Result<IsArray, E> {
                Ok(IsArray(false))
            }
            fn visit_f64<E>(self, _: f64) -> Result<IsArray, E> {
                Ok(IsArray(false))
            }
            fn visit_str<E>(self, _: &str) -> Result<IsArray, E> {
                Ok(IsArray(false))
            }
            fn visit_unit<E>(self) -> Result<IsArray, E> {
                Ok(IsArray(false))
            }
        }
        d.deserialize_any(V)
    }
}

/// The fast path of [`parse_compact`]: the file and its top-level shape
/// in one pass, or `None` where the tree reader must name an error.
fn parse_compact_fast(bytes: &[u8]) -> Option<(JsonShape, CompactFile)> {
    let body = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    let fast = serde_json::from_slice::<FastCompact>(body).ok()?;
    let model = fast.model.parse::<Model>().ok()?;
    let rounds_of =
        |rounds: Vec<FastRound>| rounds.into_iter().map(|r| (r.repeat, r.pairs)).collect();
    // Version 1 ignores a `classes` key as any other; version 2 needs it
    // (the tree reader words its absence).
    let classes = match (fast.shape.compact_v2, fast.classes) {
        (false, _) => Vec::new(),
        (true, None) => return None,
        (true, Some(classes)) => classes
            .into_iter()
            .map(|c| CompactClass {
                members: c.members,
                rounds: rounds_of(c.rounds),
            })
            .collect(),
    };
    let file = CompactFile {
        model,
        rounds: rounds_of(fast.rounds),
        classes,
    };
    Some((fast.shape, file))
}

/// A compact file read without a value tree: every object's keys are
/// checked for repeats as the tree reader does, unknown keys are read
/// strictly and dropped.
struct FastCompact {
    model: String,
    rounds: Vec<FastRound>,
    classes: Option<Vec<FastClass>>,
    /// The top level, as [`json_shape`] reads it.
    shape: JsonShape,
}

struct FastRound {
    repeat: u64,
    pairs: Vec<(u64, u64)>,
}

struct FastClass {
    members: Vec<Vec<u64>>,
    rounds: Vec<FastRound>,
}

impl<'de> serde::Deserialize<'de> for FastCompact {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FastCompact;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a compact schedule object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastCompact, A::Error> {
                let (mut model, mut rounds, mut classes) = (None, None, None);
                let mut shape = JsonShape::default();
                while let Some(key) = map.next_key::<String>()? {
                    if shape.keys.contains(&key) {
                        return Err(duplicate_key(&key));
                    }
                    match key.as_str() {
                        "model" => model = Some(map.next_value::<String>()?),
                        "rounds" => rounds = Some(map.next_value::<Vec<FastRound>>()?),
                        "classes" => classes = Some(map.next_value::<Vec<FastClass>>()?),
                        "format" => shape.read_tag(&map.next_value::<StrictValue>()?.0),
                        "ticks" => shape.ticks_array = map.next_value::<IsArray>()?.0,
                        _ => {
                            map.next_value::<StrictIgnore>()?;
                        }
                    }
                    shape.keys.push(key);
                }
                Ok(FastCompact {
                    model: model.ok_or_else(|| serde::de::Error::missing_field("model"))?,
                    rounds: rounds.ok_or_else(|| serde::de::Error::missing_field("rounds"))?,
                    classes,
                    shape,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> serde::Deserialize<'de> for FastRound {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FastRound;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a round object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastRound, A::Error> {
                let (mut repeat, mut pairs, mut seen) = (None, None, Vec::<String>::new());
                while let Some(key) = map.next_key::<String>()? {
                    if seen.contains(&key) {
                        return Err(duplicate_key(&key));
                    }
                    match key.as_str() {
                        "repeat" => repeat = Some(map.next_value::<u64>()?),
                        "pairs" => pairs = Some(map.next_value::<Vec<(u64, u64)>>()?),
                        _ => {
                            map.next_value::<StrictIgnore>()?;
                        }
                    }
                    seen.push(key);
                }
                Ok(FastRound {
                    repeat: repeat.ok_or_else(|| serde::de::Error::missing_field("repeat"))?,
                    pairs: pairs.ok_or_else(|| serde::de::Error::missing_field("pairs"))?,
                })
            }
        }
        d.deserialize_map(V)
    }
}

impl<'de> serde::Deserialize<'de> for FastClass {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FastClass;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a class object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FastClass, A::Error> {
                let (mut members, mut rounds, mut seen) = (None, None, Vec::<String>::new());
                while let Some(key) = map.next_key::<String>()? {
                    if seen.contains(&key) {
                        return Err(duplicate_key(&key));
                    }
                    match key.as_str() {
                        "members" => members = Some(map.next_value::<Vec<Vec<u64>>>()?),
                        "rounds" => rounds = Some(map.next_value::<Vec<FastRound>>()?),
                        _ => {
                            map.next_value::<StrictIgnore>()?;
                        }
                    }
                    seen.push(key);
                }
                Ok(FastClass {
                    members: members.ok_or_else(|| serde::de::Error::missing_field("members"))?,
                    rounds: rounds.ok_or_else(|| serde::de::Error::missing_field("rounds"))?,
                })
            }
        }
        d.deserialize_map(V)
    }
}

/// What a reader passes on: one tick, or a run of empty ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TickEvent<'a> {
    Tick(&'a [RawChunk]),
    /// This many empty ticks (a gap in a CSV schedule's tick numbers).
    Empty(u64),
}

/// Streams an expanded schedule file (copyspace-guard JSON or CSV) into
/// `sink`, one tick (or one run of empty ticks) at a time. Returns the
/// model a JSON file declares.
pub fn stream_schedule_file(
    path: &Path,
    sink: &mut dyn FnMut(TickEvent),
) -> Result<Option<Model>, InputError> {
    let name = path.display().to_string();
    let first = sniff(path)?;
    let mut reader = BufReader::with_capacity(1 << 16, open(path)?);
    skip_bom(&mut reader).map_err(|e| io_err(path, e))?;
    let r = if first == Some(b'{') {
        stream_json(reader, sink)
    } else {
        stream_csv(reader, sink).map(|_| None)
    };
    r.map_err(|e| e.in_file(name))
}

/// Consumes a leading UTF-8 byte-order mark, if any (the reader is a
/// file's, whose first fill holds at least three bytes when it has them).
fn skip_bom(reader: &mut impl BufRead) -> std::io::Result<()> {
    if reader.fill_buf()?.starts_with(UTF8_BOM) {
        reader.consume(UTF8_BOM.len());
    }
    Ok(())
}

struct TicksSeed<'s> {
    sink: &'s mut dyn FnMut(TickEvent),
}

impl<'de> DeserializeSeed<'de> for TicksSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for TicksSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of ticks")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut raw = Vec::new();
        while let Some(StrictValue(tick)) = seq.next_element::<StrictValue>()? {
            raw.clear();
            match tick {
                Value::Array(chunks) => raw.extend(chunks.iter().map(raw_chunk_of_value)),
                // copyspace-guard: "tick must be a list" is a STRUCT error per chunk-less tick.
                _ => raw.push(RawChunk::Malformed),
            }
            (self.sink)(TickEvent::Tick(&raw));
        }
        Ok(())
    }
}

fn raw_chunk_of_value(v: &Value) -> RawChunk {
    let field = |k: &str| -> Option<i128> {
        let n = v.get(k)?;
        n.as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
    };
    match (field("src_slot"), field("dst_slot"), field("len_bits")) {
        (Some(src), Some(dst), Some(len)) => RawChunk::Chunk { src, dst, len },
        _ => RawChunk::Malformed,
    }
}

struct ScheduleVisitor<'s> {
    sink: &'s mut dyn FnMut(TickEvent),
}

impl<'de> Visitor<'de> for ScheduleVisitor<'_> {
    type Value = (Option<Value>, Option<Value>, bool);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a schedule JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (mut version, mut model, mut ticks) = (None, None, false);
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(duplicate_key(&key));
            }
            match key.as_str() {
                "version" => version = Some(map.next_value::<StrictValue>()?.0),
                "model" => model = Some(map.next_value::<StrictValue>()?.0),
                "ticks" => {
                    map.next_value_seed(TicksSeed {
                        sink: &mut *self.sink,
                    })?;
                    ticks = true;
                }
                _ => {
                    map.next_value::<StrictIgnore>()?;
                }
            }
        }
        Ok((version, model, ticks))
    }
}

fn stream_json(
    reader: impl Read,
    sink: &mut dyn FnMut(TickEvent),
) -> Result<Option<Model>, InputError> {
    let mut de = serde_json::Deserializer::from_reader(reader);
    let (version, model, ticks) = de
        .deserialize_map(ScheduleVisitor { sink })
        .map_err(|e| json_error(&e, "invalid schedule JSON"))?;
    de.end().map_err(|e| {
        InputError::new(format!("trailing data after schedule JSON: {e}")).at_line(e.line() as u64)
    })?;
    if version.as_ref().and_then(Value::as_u64) != Some(0) {
        return Err(InputError::field("version", "schedule.version must be 0"));
    }
    if !ticks {
        return Err(InputError::field("ticks", "schedule.ticks must be a list"));
    }
    let model = model
        .as_ref()
        .and_then(Value::as_str)
        .ok_or_else(|| InputError::field("model", "schedule.model must be a string"))?
        .parse::<Model>()
        .map_err(|e| InputError::field("model", e.to_string()))?;
    Ok(Some(model))
}

fn stream_csv(reader: impl BufRead, sink: &mut dyn FnMut(TickEvent)) -> Result<(), InputError> {
    const COLS: [&str; 4] = ["tick", "src_slot", "dst_slot", "len_bits"];
    let mut positions: Option<[usize; 4]> = None;
    let mut first = true;
    let mut current: Option<u64> = None;
    let mut buf: Vec<RawChunk> = Vec::new();
    let mut any = false;
    let mut line_bytes = Vec::new();
    let mut reader = reader;
    let mut lineno = 0u64;
    loop {
        line_bytes.clear();
        let n = reader
            .read_until(b'\n', &mut line_bytes)
            .map_err(|e| InputError::new(format!("read error: {e}")))?;
        if n == 0 {
            break;
        }
        lineno += 1;
        let line = std::str::from_utf8(&line_bytes)
            .map_err(|_| InputError::new("invalid UTF-8").at_line(lineno))?
            .trim_end_matches(['\n', '\r']);
        let cells = split_cells(line);
        if is_skippable(&cells) {
            continue;
        }
        if first {
            first = false;
            let mut pos = [usize::MAX; 4];
            for (i, c) in cells.iter().enumerate() {
                if let Some(k) = COLS
                    .iter()
                    .position(|n| *n == c.trim_start_matches('\u{feff}'))
                {
                    pos[k] = i;
                }
            }
            if pos.iter().all(|&p| p != usize::MAX) {
                positions = Some(pos);
                continue;
            }
        }
        let pos = positions.unwrap_or([0, 1, 2, 3]);
        if cells.len() < 4 && positions.is_none() {
            return Err(InputError::new(format!(
                "expected 4 columns tick,src_slot,dst_slot,len_bits, got {}",
                cells.len()
            ))
            .at_line(lineno));
        }
        let cell = |k: usize| cells.get(pos[k]).copied().unwrap_or("");
        let tick = parse_uint(cell(0), "tick", lineno)?;
        let mut ints = [0i128; 3];
        for k in 1..4 {
            let c = cell(k);
            ints[k - 1] = c.parse::<i128>().map_err(|_| {
                InputError::field(COLS[k], format!("{c:?} is not an integer")).at_line(lineno)
            })?;
        }
        match current {
            Some(t) if tick < t => {
                return Err(InputError::field(
                    "tick",
                    format!("ticks must be sorted (tick {tick} after {t})"),
                )
                .at_line(lineno))
            }
            Some(t) if tick > t => {
                sink(TickEvent::Tick(&buf));
                buf.clear();
                if tick - t > 1 {
                    sink(TickEvent::Empty(tick - t - 1));
                }
            }
            None if tick > 0 => sink(TickEvent::Empty(tick)),
            _ => {}
        }
        current = Some(tick);
        any = true;
        buf.push(RawChunk::Chunk {
            src: ints[0],
            dst: ints[1],
            len: ints[2],
        });
    }
    if !any {
        return Err(InputError::new("no schedule rows found in CSV").at_line(lineno.max(1)));
    }
    sink(TickEvent::Tick(&buf));
    Ok(())
}

/// Validates a schedule file already read (by `interop::read_schedule_file`,
/// which picks the reader, or [`read_schedule_file`]) against `inst`
/// (`path` is streamed again only if expanded), so a caller that needed
/// the file first (for its model) reads it once. A readable but wrong
/// schedule is a FAIL report.
pub fn validate_schedule_input(
    inst: &Instance,
    input: ScheduleInput,
    path: &Path,
) -> Result<Report, InputError> {
    Ok(validate_input(inst, input, path, false)?.0)
}

/// Loads a schedule file already read (see [`validate_schedule_input`])
/// as a compact [`Schedule`] of `inst`'s demands, in ordinary rounds (a
/// version-2 file's classes laid over their members). Expanded files are
/// merged into rounds of equal consecutive ticks; they must use the
/// standard chunking (`bw` bits, the last chunk the rest). A schedule that
/// does not validate is an error.
pub fn load_schedule_input(
    inst: &Instance,
    input: ScheduleInput,
    path: &Path,
) -> Result<Schedule, InputError> {
    let name = path.display().to_string();
    let (report, schedule) = validate_input(inst, input, path, true)?;
    if !report.passed() {
        return Err(
            InputError::new(format!("schedule does not validate: {}", report.one_line()))
                .in_file(name),
        );
    }
    match schedule {
        // Version 2's classes laid out: the loaders' callers (export,
        // replay) need every transfer.
        Some(Ok(s)) if !s.classes.is_empty() => Ok(s.flat().into_owned()),
        Some(Ok(s)) => Ok(s),
        Some(Err(msg)) => Err(InputError::new(format!(
            "{msg}; only standard chunking can be replayed"
        ))
        .in_file(name)),
        None => unreachable!("validate_input builds the schedule when asked"),
    }
}

/// The report of a schedule whose model is not the instance's.
fn model_mismatch(inst: &Instance) -> Report {
    let mut v = TickValidator::new(inst);
    v.structural_error(format!(
        "schedule.model must match instance.model \"{}\"",
        inst.model
    ));
    v.finish()
}

/// A schedule file already read: its validation report and, when
/// `build`, the compact schedule (or why an expanded file cannot be one).
/// The schedule is meaningful only when the report passes.
#[allow(clippy::type_complexity)]
fn validate_input(
    inst: &Instance,
    input: ScheduleInput,
    path: &Path,
    build: bool,
) -> Result<(Report, Option<Result<Schedule, String>>), InputError> {
    match input {
        ScheduleInput::Compact(c) => {
            if c.model != inst.model {
                return Ok((model_mismatch(inst), None));
            }
            Ok(validate_rounds(inst, &c, build))
        }
        ScheduleInput::Levels(program) => {
            let hops = program
                .judged_against(inst)
                .map_err(|e| e.in_file(path.display().to_string()))?;
            let c = CompactFile {
                model: inst.model,
                rounds: program.ticks.into_iter().map(|l| (1, l)).collect(),
                classes: Vec::new(),
            };
            match hops {
                None => Ok(validate_rounds(inst, &c, build)),
                Some(hops) => {
                    let why = "a relaying MSCCL program moves its collective's chunks over other pairs; it is no schedule of the collective's demands";
                    let report = validate_rounds(&hops, &c, false).0;
                    Ok((report, build.then(|| Err(why.to_string()))))
                }
            }
        }
        ScheduleInput::Expanded => {
            let mut v = TickValidator::new(inst);
            let mut s = Schedule::new();
            let mut sent = vec![0u64; inst.demands().len()];
            let mut bad: Option<String> = None;
            let model = stream_schedule_file(path, &mut |event| match event {
                TickEvent::Tick(tick) => {
                    v.push_tick(tick);
                    if build {
                        s.push(1, standard_chunk_indices(inst, tick, &mut sent, &mut bad));
                    }
                }
                // Empty ticks carry nothing to replay: the compact schedule leaves them out.
                TickEvent::Empty(n) => v.push_empty_ticks(n),
            })?;
            if model.is_some_and(|m| m != inst.model) {
                return Ok((model_mismatch(inst), None));
            }
            let schedule = build.then_some(match bad {
                Some(msg) => Err(msg),
                None => Ok(s),
            });
            Ok((v.finish(), schedule))
        }
    }
}

/// Validates rounds of demand pairs (a compact file's, or an MSCCL
/// program's levels) against `inst`, with standard chunking; a pair that
/// is not a demand is an `EXTRAS` failure. With `build`, the schedule too.
#[allow(clippy::type_complexity)]
pub fn validate_rounds(
    inst: &Instance,
    c: &CompactFile,
    build: bool,
) -> (Report, Option<Result<Schedule, String>>) {
    match c.to_schedule_kind(inst) {
        Ok(s) => {
            let report = crate::validate::validate_compact(inst, &s);
            (report, build.then_some(Ok(s)))
        }
        Err((kind, e)) => {
            let mut r = TickValidator::new(inst).finish();
            r.status = crate::validate::Verdict::Fail;
            r.total_errors += 1;
            r.error_kinds.insert(0, kind);
            r.error_kinds.sort();
            r.error_kinds.dedup();
            r.errors.insert(
                0,
                crate::validate::ValidationError::of_kind(kind, e.to_string()),
            );
            (r, None)
        }
    }
}

/// Demand indices of one expanded tick, noting in `bad` the first chunk
/// whose length is not the standard chunking's (chunks that are not
/// demands are left out: validation reports them).
fn standard_chunk_indices(
    inst: &Instance,
    tick: &[RawChunk],
    sent: &mut [u64],
    bad: &mut Option<String>,
) -> Vec<u32> {
    let mut idx = Vec::with_capacity(tick.len());
    for c in tick {
        if let RawChunk::Chunk { src, dst, len } = *c {
            let (Ok(a), Ok(b)) = (u32::try_from(src), u32::try_from(dst)) else {
                continue;
            };
            if let Some(i) = inst.demand_index(a, b) {
                let expect = inst.chunk_len(i, sent[i].min(inst.chunks(i) - 1));
                if len != expect as i128 && bad.is_none() {
                    *bad = Some(format!(
                        "chunk {src}->{dst} carries {len} bits where the standard chunking gives {expect}"
                    ));
                }
                sent[i] += 1;
                idx.push(i as u32);
            }
        }
    }
    idx
}

#[cfg(test)]
mod compact_tests {
    use super::parse_compact;
    use crate::instance::Model;

    const GOOD: &str = r#"{"format":"tickopt-compact","model":"STRICT1","rounds":[{"repeat":2,"pairs":[[0,1],[2,3]]},{"repeat":1,"pairs":[]}]}"#;

    /// The typed fast path reads what the tree reader reads, and refuses a
    /// repeated key at every level (through the tree reader's message).
    #[test]
    fn compact_reads_typed_and_refuses_repeated_keys() {
        let f = parse_compact(GOOD.as_bytes()).unwrap();
        assert_eq!(f.model, Model::Strict1);
        assert_eq!(f.rounds, vec![(2, vec![(0, 1), (2, 3)]), (1, vec![])]);
        let bom = [b"\xEF\xBB\xBF".as_slice(), GOOD.as_bytes()].concat();
        assert_eq!(parse_compact(&bom).unwrap(), f);
        for (doctored, key) in [
            (
                GOOD.replace(r#""repeat":2,"#, r#""repeat":2,"repeat":5,"#),
                "repeat",
            ),
            (GOOD.replace(r#""format""#, r#""x":1,"x":2,"format""#), "x"),
            (
                GOOD.replace(
                    r#""model":"STRICT1","#,
                    r#""model":"STRICT1","model":"READ1_WRITE1","#,
                ),
                "model",
            ),
            (GOOD.replace(r#"[[0,1],"#, r#"[[0,1],{"a":1,"a":1},"#), "a"),
        ] {
            let e = parse_compact(doctored.as_bytes()).unwrap_err().to_string();
            assert!(e.contains(&format!("duplicate key \"{key}\"")), "{e}");
        }
        let e = parse_compact(GOOD.replace("[0,1]", "[0,-1]").as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("rounds[0].pairs[0]") && e.contains("negative"),
            "{e}"
        );
    }

    /// A file that opens with the compact tag is read whole in one pass,
    /// with the verdicts of the reader pass: the rounds of a compact file,
    /// "both" for one that also has a `ticks` array, an expanded schedule
    /// for a `ticks` array with a tag that is not the compact one, and a
    /// repeated key at any depth refused.
    #[test]
    fn files_opening_with_the_compact_tag_keep_their_verdicts() {
        use super::{read_schedule_file, ScheduleInput};
        let good = r#"{"version":0,"format":"tickopt-compact-v1","model":"STRICT1","rounds":[
{"repeat":2,"pairs":[[0,1],[2,3]]}]}"#;
        let dir = tempfile::tempdir().unwrap();
        let read = |text: &str| {
            let path = dir.path().join("s.json");
            std::fs::write(&path, text).unwrap();
            read_schedule_file(&path)
        };
        match read(good).unwrap() {
            ScheduleInput::Compact(c) => {
                assert_eq!(c.rounds, vec![(2, vec![(0, 1), (2, 3)])])
            }
            _ => panic!("not read as compact"),
        }
        let both = good.replace(r#""rounds""#, r#""ticks":[],"rounds""#);
        let e = read(&both).err().expect("refused").to_string();
        assert!(e.contains("both a compact schedule"), "{e}");
        let expanded =
            r#"{"version":0,"format":"tickopt-compact-v1x","model":"STRICT1","ticks":[]}"#;
        assert!(matches!(read(expanded).unwrap(), ScheduleInput::Expanded));
        let repeated = good.replace(r#""repeat":2,"#, r#""repeat":2,"repeat":3,"#);
        let e = read(&repeated).err().expect("refused").to_string();
        assert!(e.contains("duplicate key \"repeat\""), "{e}");
    }
}
