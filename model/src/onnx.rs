//! ONNX export of the network (opset 13): input `planes` `[N, C, H, W]`,
//! outputs `policy_logits` `[N, actions]` and `wdl_logits` `[N, 3]`, batch
//! normalisation folded into the convolutions.
//!
//! The messages below are the subset of ONNX's `onnx.proto` (field numbers
//! as there) that the export writes, encoded with prost.

use prost::Message;

use crate::inference::FoldedWeights;
use crate::network::NetworkConfig;

/// ONNX IR version written (ONNX 1.8 and later read it).
const IR_VERSION: i64 = 7;
/// The operator set.
pub const OPSET: i64 = 13;
const FLOAT: i32 = 1;

#[derive(Clone, PartialEq, Message)]
struct ModelProto {
    #[prost(int64, tag = "1")]
    ir_version: i64,
    #[prost(string, tag = "2")]
    producer_name: String,
    #[prost(string, tag = "3")]
    producer_version: String,
    #[prost(message, optional, tag = "7")]
    graph: Option<GraphProto>,
    #[prost(message, repeated, tag = "8")]
    opset_import: Vec<OperatorSetIdProto>,
    #[prost(message, repeated, tag = "14")]
    metadata_props: Vec<StringStringEntryProto>,
}

#[derive(Clone, PartialEq, Message)]
struct OperatorSetIdProto {
    #[prost(string, tag = "1")]
    domain: String,
    #[prost(int64, tag = "2")]
    version: i64,
}

#[derive(Clone, PartialEq, Message)]
struct StringStringEntryProto {
    #[prost(string, tag = "1")]
    key: String,
    #[prost(string, tag = "2")]
    value: String,
}

#[derive(Clone, PartialEq, Message)]
struct GraphProto {
    #[prost(message, repeated, tag = "1")]
    node: Vec<NodeProto>,
    #[prost(string, tag = "2")]
    name: String,
    #[prost(message, repeated, tag = "5")]
    initializer: Vec<TensorProto>,
    #[prost(message, repeated, tag = "11")]
    input: Vec<ValueInfoProto>,
    #[prost(message, repeated, tag = "12")]
    output: Vec<ValueInfoProto>,
}

#[derive(Clone, PartialEq, Message)]
struct NodeProto {
    #[prost(string, repeated, tag = "1")]
    input: Vec<String>,
    #[prost(string, repeated, tag = "2")]
    output: Vec<String>,
    #[prost(string, tag = "3")]
    name: String,
    #[prost(string, tag = "4")]
    op_type: String,
    #[prost(message, repeated, tag = "5")]
    attribute: Vec<AttributeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct AttributeProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(int64, tag = "3")]
    i: i64,
    #[prost(int64, repeated, packed = "false", tag = "8")]
    ints: Vec<i64>,
    /// 2 = INT, 7 = INTS.
    #[prost(int32, tag = "20")]
    r#type: i32,
}

#[derive(Clone, PartialEq, Message)]
struct TensorProto {
    #[prost(int64, repeated, packed = "false", tag = "1")]
    dims: Vec<i64>,
    #[prost(int32, tag = "2")]
    data_type: i32,
    #[prost(string, tag = "8")]
    name: String,
    #[prost(bytes = "vec", tag = "9")]
    raw_data: Vec<u8>,
}

#[derive(Clone, PartialEq, Message)]
struct ValueInfoProto {
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, optional, tag = "2")]
    r#type: Option<TypeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct TypeProto {
    #[prost(message, optional, tag = "1")]
    tensor_type: Option<TensorTypeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct TensorTypeProto {
    #[prost(int32, tag = "1")]
    elem_type: i32,
    #[prost(message, optional, tag = "2")]
    shape: Option<TensorShapeProto>,
}

#[derive(Clone, PartialEq, Message)]
struct TensorShapeProto {
    #[prost(message, repeated, tag = "1")]
    dim: Vec<Dimension>,
}

#[derive(Clone, PartialEq, Message)]
struct Dimension {
    #[prost(int64, optional, tag = "1")]
    dim_value: Option<i64>,
    #[prost(string, optional, tag = "2")]
    dim_param: Option<String>,
}

fn float_tensor(name: &str, dims: &[usize], values: &[f32]) -> TensorProto {
    TensorProto {
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: FLOAT,
        name: name.to_string(),
        raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

fn ints(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.to_string(),
        ints: values.to_vec(),
        r#type: 7,
        ..AttributeProto::default()
    }
}

fn node(
    op: &str,
    name: &str,
    inputs: &[&str],
    output: &str,
    attribute: Vec<AttributeProto>,
) -> NodeProto {
    NodeProto {
        input: inputs.iter().map(|s| s.to_string()).collect(),
        output: vec![output.to_string()],
        name: name.to_string(),
        op_type: op.to_string(),
        attribute,
    }
}

fn value_info(name: &str, dims: &[Option<usize>]) -> ValueInfoProto {
    ValueInfoProto {
        name: name.to_string(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto {
                elem_type: FLOAT,
                shape: Some(TensorShapeProto {
                    dim: dims
                        .iter()
                        .map(|d| match d {
                            Some(value) => Dimension {
                                dim_value: Some(*value as i64),
                                dim_param: None,
                            },
                            None => Dimension {
                                dim_value: None,
                                dim_param: Some("N".to_string()),
                            },
                        })
                        .collect(),
                }),
            }),
        }),
    }
}

/// Builds graph nodes and initialisers step by step.
struct GraphBuilder {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
}

impl GraphBuilder {
    fn conv(&mut self, name: &str, input: &str, conv: &crate::inference::ConvWeights) -> String {
        let pad = (conv.kernel / 2) as i64;
        let weight = format!("{name}.weight");
        let bias = format!("{name}.bias");
        self.initializers.push(float_tensor(
            &weight,
            &[conv.output, conv.input, conv.kernel, conv.kernel],
            &conv.weights,
        ));
        self.initializers
            .push(float_tensor(&bias, &[conv.output], &conv.bias));
        let output = format!("{name}.out");
        self.nodes.push(node(
            "Conv",
            name,
            &[input, &weight, &bias],
            &output,
            vec![
                ints("kernel_shape", &[conv.kernel as i64, conv.kernel as i64]),
                ints("pads", &[pad, pad, pad, pad]),
            ],
        ));
        output
    }

    fn unary(&mut self, op: &str, name: &str, input: &str) -> String {
        let output = format!("{name}.out");
        self.nodes
            .push(node(op, name, &[input], &output, Vec::new()));
        output
    }

    fn add(&mut self, name: &str, a: &str, b: &str) -> String {
        let output = format!("{name}.out");
        self.nodes
            .push(node("Add", name, &[a, b], &output, Vec::new()));
        output
    }

    fn flatten(&mut self, name: &str, input: &str) -> String {
        let output = format!("{name}.out");
        let mut flatten = node("Flatten", name, &[input], &output, Vec::new());
        flatten.attribute.push(AttributeProto {
            name: "axis".to_string(),
            i: 1,
            r#type: 2,
            ..AttributeProto::default()
        });
        self.nodes.push(flatten);
        output
    }

    /// `input · weights + bias` with weights `[in][out]`; named `output`.
    fn dense(
        &mut self,
        name: &str,
        input: &str,
        dense: &crate::inference::DenseWeights,
        output: &str,
    ) -> String {
        let weight = format!("{name}.weight");
        let bias = format!("{name}.bias");
        self.initializers.push(float_tensor(
            &weight,
            &[dense.input, dense.output],
            &dense.weights,
        ));
        self.initializers
            .push(float_tensor(&bias, &[dense.output], &dense.bias));
        self.nodes.push(node(
            "Gemm",
            name,
            &[input, &weight, &bias],
            output,
            Vec::new(),
        ));
        output.to_string()
    }
}

/// The graph of the network: its nodes and its weights (initializers).
fn build_graph(weights: &FoldedWeights) -> GraphBuilder {
    let mut graph = GraphBuilder {
        nodes: Vec::new(),
        initializers: Vec::new(),
    };
    let stem = graph.conv("stem", "planes", &weights.stem);
    let mut x = graph.unary("Relu", "stem.relu", &stem);
    for (index, (first, second)) in weights.blocks.iter().enumerate() {
        let name = format!("block{index}");
        let hidden = graph.conv(&format!("{name}.first"), &x, first);
        let hidden = graph.unary("Relu", &format!("{name}.first.relu"), &hidden);
        let hidden = graph.conv(&format!("{name}.second"), &hidden, second);
        let sum = graph.add(&format!("{name}.add"), &hidden, &x);
        x = graph.unary("Relu", &format!("{name}.relu"), &sum);
    }
    let policy = graph.conv("policy.conv", &x, &weights.policy_conv);
    let policy = graph.unary("Relu", "policy.relu", &policy);
    let policy = graph.flatten("policy.flatten", &policy);
    graph.dense(
        "policy.linear",
        &policy,
        &weights.policy_linear,
        "policy_logits",
    );
    let value = graph.conv("value.conv", &x, &weights.value_conv);
    let value = graph.unary("Relu", "value.relu", &value);
    let value = graph.flatten("value.flatten", &value);
    let value = graph.dense(
        "value.hidden",
        &value,
        &weights.value_hidden,
        "value.hidden.out",
    );
    let value = graph.unary("Relu", "value.hidden.relu", &value);
    graph.dense("value.output", &value, &weights.value_output, "wdl_logits");
    graph
}

/// The folded weights in the safetensors format, under the names the ONNX
/// graph gives them (`stem.weight`, `block0.first.bias`, …, `value.output.weight`),
/// with `metadata` in the header.
pub fn safetensors(
    weights: &FoldedWeights,
    metadata: &[(String, String)],
) -> Result<Vec<u8>, String> {
    let graph = build_graph(weights);
    let views: Vec<(String, ::safetensors::tensor::TensorView<'_>)> = graph
        .initializers
        .iter()
        .map(|t| {
            let shape: Vec<usize> = t.dims.iter().map(|&d| d as usize).collect();
            ::safetensors::tensor::TensorView::new(::safetensors::Dtype::F32, shape, &t.raw_data)
                .map(|view| (t.name.clone(), view))
                .map_err(|e| format!("tensor {}: {e}", t.name))
        })
        .collect::<Result<_, _>>()?;
    let header: std::collections::HashMap<String, String> = metadata.iter().cloned().collect();
    ::safetensors::tensor::serialize(views, Some(header)).map_err(|e| e.to_string())
}

/// The ONNX model of `weights`, as bytes, with `metadata` as key/value
/// properties.
pub fn export(
    weights: &FoldedWeights,
    config: &NetworkConfig,
    metadata: &[(String, String)],
) -> Vec<u8> {
    let graph = build_graph(weights);
    let model = ModelProto {
        ir_version: IR_VERSION,
        producer_name: "grandmaitre".to_string(),
        producer_version: env!("CARGO_PKG_VERSION").to_string(),
        graph: Some(GraphProto {
            node: graph.nodes,
            name: "grandmaitre".to_string(),
            initializer: graph.initializers,
            input: vec![value_info(
                "planes",
                &[
                    None,
                    Some(config.input_planes),
                    Some(config.height),
                    Some(config.width),
                ],
            )],
            output: vec![
                value_info("policy_logits", &[None, Some(config.actions)]),
                value_info("wdl_logits", &[None, Some(3)]),
            ],
        }),
        opset_import: vec![OperatorSetIdProto {
            domain: String::new(),
            version: OPSET,
        }],
        metadata_props: metadata
            .iter()
            .map(|(key, value)| StringStringEntryProto {
                key: key.clone(),
                value: value.clone(),
            })
            .collect(),
    };
    model.encode_to_vec()
}
