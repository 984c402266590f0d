//! Compact input schemas. Every listed tool's schema is re-sent to the model on every turn, so
//! the generator's defaults are trimmed to what a model needs: no meta-schema URI, no `$defs`
//! indirection, no `"null"` alternatives for optional fields (omitting a field is how a
//! model says "none"), no numeric `format` annotations.

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The input schema of an argument type. Panics on a non-object root, which is a programming
/// error caught by every test that lists the tools.
pub(crate) fn input<T: JsonSchema>() -> Arc<JsonObject> {
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut v = serde_json::to_value(generator.into_root_schema_for::<T>()).expect("a schema serializes");
    compact(&mut v);
    let Value::Object(mut o) = v else {
        panic!("tool input schema is not an object");
    };
    assert_eq!(
        o.get("type"),
        Some(&Value::from("object")),
        "MCP needs an object root"
    );
    // The struct's own doc comment and name are noise next to the tool's description.
    o.remove("title");
    o.remove("description");
    Arc::new(o)
}

fn compact(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("format");
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    o.insert("type".into(), only);
                }
            }
            if let Some(Value::Array(values)) = o.get_mut("enum") {
                values.retain(|x| !x.is_null());
            }
            if let Some(Value::Array(alts)) = o.get("anyOf") {
                let kept: Vec<Value> = alts
                    .iter()
                    .filter(|a| a.get("type") != Some(&Value::from("null")))
                    .cloned()
                    .collect();
                if kept.len() == 1
                    && let Value::Object(inner) = &kept[0]
                {
                    o.remove("anyOf");
                    for (k, val) in inner {
                        // The field's own description wins over the type's.
                        o.entry(k.clone()).or_insert_with(|| val.clone());
                    }
                }
            }
            for val in o.values_mut() {
                compact(val);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(compact),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// A count.
        n: Option<u8>,
        /// A kind.
        kind: Option<Kind>,
        list: Vec<String>,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    enum Kind {
        A,
        B,
    }

    #[test]
    fn optional_fields_lose_null_and_refs_are_inlined() {
        let s = Value::Object((*input::<Args>()).clone());
        assert_eq!(s["properties"]["n"]["type"], "integer");
        assert!(s["properties"]["n"].get("format").is_none());
        assert_eq!(s["properties"]["kind"]["enum"], serde_json::json!(["A", "B"]));
        assert_eq!(s["properties"]["kind"]["description"], "A kind.");
        assert!(s.get("$defs").is_none() && s.get("$schema").is_none());
        assert_eq!(s["required"], serde_json::json!(["list"]));
    }
}
