//! Rust values that serde can serialise (a step's record, a run's summary, a scene's
//! TOML) as Python objects: a small serde serialiser into [`Val`], then [`Val`] into
//! Python. Unlike a trip through JSON it keeps ±∞ and NaN as floats (a step with no
//! pair near gives `min_pair_distance = inf`, not `None`) and keeps fields in order.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::ser::{self, Serialize};
use std::borrow::Cow;
use std::fmt;

/// A serialised value.
#[derive(Clone, Debug, PartialEq)]
pub enum Val {
    /// `None` (a unit, or an absent option).
    Null,
    /// A bool.
    Bool(bool),
    /// Any integer.
    Int(i128),
    /// Any float.
    Float(f64),
    /// A string (or a char, or an enum's unit variant by name).
    Str(String),
    /// A sequence.
    List(Vec<Val>),
    /// A map or struct, its entries in order (a struct's keys are not copied).
    Map(Vec<(Cow<'static, str>, Val)>),
}

/// Why a value could not be serialised.
#[derive(Debug)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// `t` as a [`Val`].
pub fn to_val<T: Serialize + ?Sized>(t: &T) -> Result<Val, Error> {
    t.serialize(Ser)
}

/// `t` as a Python object (dicts, lists, floats, ints, bools, strings, `None`).
pub fn to_py<'py, T: Serialize + ?Sized>(py: Python<'py>, t: &T) -> PyResult<Bound<'py, PyAny>> {
    let v = to_val(t).map_err(|e| pyo3::exceptions::PyValueError::new_err(e.0))?;
    val_to_py(py, &v)
}

/// `v` as a Python object.
pub fn val_to_py<'py>(py: Python<'py>, v: &Val) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Val::Null => py.None().into_bound(py),
        Val::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Val::Int(i) => i.into_pyobject(py)?.into_any(),
        Val::Float(f) => f.into_pyobject(py)?.into_any(),
        Val::Str(s) => s.into_pyobject(py)?.into_any(),
        Val::List(items) => {
            let list = PyList::empty(py);
            for i in items {
                list.append(val_to_py(py, i)?)?;
            }
            list.into_any()
        }
        Val::Map(entries) => {
            let dict = PyDict::new(py);
            for (k, v) in entries {
                dict.set_item(k.as_ref(), val_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

struct Ser;

/// Collects a sequence's items.
pub struct SeqSer(Vec<Val>);

/// Collects a map's or a struct's entries (a variant's under its name).
pub struct MapSer {
    entries: Vec<(Cow<'static, str>, Val)>,
    key: Option<String>,
    variant: Option<&'static str>,
}

fn key_text(v: Val) -> Result<String, Error> {
    match v {
        Val::Str(s) => Ok(s),
        Val::Int(i) => Ok(i.to_string()),
        Val::Bool(b) => Ok(b.to_string()),
        other => Err(Error(format!("a map key must be a string, got {other:?}"))),
    }
}

macro_rules! int {
    ($($name:ident: $t:ty),*) => {$(
        fn $name(self, v: $t) -> Result<Val, Error> { Ok(Val::Int(v as i128)) }
    )*};
}

impl ser::Serializer for Ser {
    type Ok = Val;
    type Error = Error;
    type SerializeSeq = SeqSer;
    type SerializeTuple = SeqSer;
    type SerializeTupleStruct = SeqSer;
    type SerializeTupleVariant = SeqSer;
    type SerializeMap = MapSer;
    type SerializeStruct = MapSer;
    type SerializeStructVariant = MapSer;

    int!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
         serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64);

    fn serialize_bool(self, v: bool) -> Result<Val, Error> {
        Ok(Val::Bool(v))
    }
    fn serialize_f32(self, v: f32) -> Result<Val, Error> {
        Ok(Val::Float(v as f64))
    }
    fn serialize_f64(self, v: f64) -> Result<Val, Error> {
        Ok(Val::Float(v))
    }
    fn serialize_char(self, v: char) -> Result<Val, Error> {
        Ok(Val::Str(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Val, Error> {
        Ok(Val::Str(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Val, Error> {
        Ok(Val::List(v.iter().map(|b| Val::Int(*b as i128)).collect()))
    }
    fn serialize_none(self) -> Result<Val, Error> {
        Ok(Val::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<Val, Error> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<Val, Error> {
        Ok(Val::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Val, Error> {
        Ok(Val::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        v: &'static str,
    ) -> Result<Val, Error> {
        Ok(Val::Str(v.to_string()))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<Val, Error> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<Val, Error> {
        Ok(Val::Map(vec![(Cow::Borrowed(variant), v.serialize(Ser)?)]))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqSer, Error> {
        Ok(SeqSer(Vec::with_capacity(len.unwrap_or(0))))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqSer, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<SeqSer, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<SeqSer, Error> {
        self.serialize_seq(Some(len))
    }
    fn serialize_map(self, _: Option<usize>) -> Result<MapSer, Error> {
        Ok(MapSer {
            entries: Vec::new(),
            key: None,
            variant: None,
        })
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<MapSer, Error> {
        self.serialize_map(None)
    }
    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<MapSer, Error> {
        Ok(MapSer {
            entries: Vec::new(),
            key: None,
            variant: Some(variant),
        })
    }
}

impl ser::SerializeSeq for SeqSer {
    type Ok = Val;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        self.0.push(v.serialize(Ser)?);
        Ok(())
    }
    fn end(self) -> Result<Val, Error> {
        Ok(Val::List(self.0))
    }
}

macro_rules! seq_like {
    ($($tr:ident :: $f:ident),*) => {$(
        impl ser::$tr for SeqSer {
            type Ok = Val;
            type Error = Error;
            fn $f<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
                ser::SerializeSeq::serialize_element(self, v)
            }
            fn end(self) -> Result<Val, Error> {
                ser::SerializeSeq::end(self)
            }
        }
    )*};
}
seq_like!(
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl MapSer {
    fn finish(self) -> Val {
        let map = Val::Map(self.entries);
        match self.variant {
            Some(name) => Val::Map(vec![(Cow::Borrowed(name), map)]),
            None => map,
        }
    }
}

impl ser::SerializeMap for MapSer {
    type Ok = Val;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        self.key = Some(key_text(k.serialize(Ser)?)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let k = self
            .key
            .take()
            .ok_or_else(|| Error("a value without a key".into()))?;
        self.entries.push((Cow::Owned(k), v.serialize(Ser)?));
        Ok(())
    }
    fn end(self) -> Result<Val, Error> {
        Ok(self.finish())
    }
}

macro_rules! struct_like {
    ($($tr:ident),*) => {$(
        impl ser::$tr for MapSer {
            type Ok = Val;
            type Error = Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                k: &'static str,
                v: &T,
            ) -> Result<(), Error> {
                self.entries.push((Cow::Borrowed(k), v.serialize(Ser)?));
                Ok(())
            }
            fn end(self) -> Result<Val, Error> {
                Ok(self.finish())
            }
        }
    )*};
}
struct_like!(SerializeStruct, SerializeStructVariant);
