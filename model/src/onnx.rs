//! ONNX export of the network (opset 13): input `planes` `[N, C, H, W]`,
//! outputs `policy_logits` `[N, actions]` and `wdl_logits` `[N, 3]` (and
//! `rules_wdl_logits` `[N, 3]` from a network with the own-rules value
//! head, which the bar reads: see [`crate::network::Network::rules_value`]), batch
//! normalisation folded into the convolutions. Pooled heads, pooling blocks
//! and the board's mask are written with `Slice`, `Mul`, `ReduceSum`,
//! `ReduceMax` and `Concat`, the policy over pairs of cells with `Reshape`,
//! `Slice`, `Transpose` and `MatMul` (see [`crate::network`]).
//!
//! The messages below are the subset of ONNX's `onnx.proto` (field numbers
//! as there) that the export writes, encoded with prost.

use prost::Message;

use crate::inference::FoldedWeights;
use crate::network::{NetworkConfig, board_size_scale};

/// ONNX IR version written (ONNX 1.8 and later read it).
const IR_VERSION: i64 = 7;
/// The operator set.
pub const OPSET: i64 = 13;
const FLOAT: i32 = 1;
const INT64: i32 = 7;

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

fn int64_tensor(name: &str, values: &[i64]) -> TensorProto {
    TensorProto {
        dims: vec![values.len() as i64],
        data_type: INT64,
        name: name.to_string(),
        raw_data: values.iter().flat_map(|v| v.to_le_bytes()).collect(),
    }
}

fn int(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: name.to_string(),
        i: value,
        r#type: 2,
        ..AttributeProto::default()
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
    /// Constants (not weights: left out of the safetensors file).
    constants: Vec<TensorProto>,
    /// `[N, 1, H, W]`, 1 on the board, with a mask plane.
    mask: Option<String>,
    /// `[N, 1]`: cells of each position's board (with a mask plane).
    board_cells: Option<String>,
    /// Cells of the grid (without a mask plane).
    grid_cells: usize,
}

impl GraphBuilder {
    fn node(
        &mut self,
        op: &str,
        name: &str,
        inputs: &[&str],
        attribute: Vec<AttributeProto>,
    ) -> String {
        let output = format!("{name}.out");
        self.nodes.push(node(op, name, inputs, &output, attribute));
        output
    }

    fn constant_floats(&mut self, name: &str, values: &[f32]) -> String {
        if !self.constants.iter().any(|c| c.name == name) {
            self.constants
                .push(float_tensor(name, &[values.len()], values));
        }
        name.to_string()
    }

    fn constant_ints(&mut self, name: &str, values: &[i64]) -> String {
        if !self.constants.iter().any(|c| c.name == name) {
            self.constants.push(int64_tensor(name, values));
        }
        name.to_string()
    }

    /// `x` with the cells off the board zeroed.
    fn mask(&mut self, name: &str, x: &str) -> String {
        match self.mask.clone() {
            Some(mask) => self.node("Mul", name, &[x, &mask], Vec::new()),
            None => x.to_string(),
        }
    }

    /// Global pooling of `[N, C, H, W]` non-negative features into
    /// `[N, 3C]`: means, scaled means, maxima over the board.
    fn pool(&mut self, name: &str, x: &str) -> String {
        let axes = self.constant_ints("const.axes_hw", &[2, 3]);
        let masked = self.mask(&format!("{name}.masked"), x);
        let maxima = self.node(
            "ReduceMax",
            &format!("{name}.max"),
            &[&masked],
            vec![ints("axes", &[2, 3]), int("keepdims", 0)],
        );
        let (means, scale) = match self.board_cells.clone() {
            Some(cells) => {
                let sums = self.node(
                    "ReduceSum",
                    &format!("{name}.sum"),
                    &[&masked, &axes],
                    vec![int("keepdims", 0)],
                );
                let means = self.node("Div", &format!("{name}.mean"), &[&sums, &cells], Vec::new());
                (means, self.board_scale())
            }
            None => {
                let means = self.node(
                    "ReduceMean",
                    &format!("{name}.mean"),
                    &[&masked],
                    vec![ints("axes", &[2, 3]), int("keepdims", 0)],
                );
                let scale = board_size_scale(self.grid_cells as f32);
                (means, self.constant_floats("const.board_scale", &[scale]))
            }
        };
        let scaled = self.node(
            "Mul",
            &format!("{name}.scaled"),
            &[&means, &scale],
            Vec::new(),
        );
        self.node(
            "Concat",
            name,
            &[&means, &scaled, &maxima],
            vec![int("axis", 1)],
        )
    }

    /// `[N, 1]`: (√cells − 10) / 10 of each position's board, computed once.
    fn board_scale(&mut self) -> String {
        let name = "board.scale";
        let output = format!("{name}.out");
        if self.nodes.iter().any(|n| n.output[0] == output) {
            return output;
        }
        let cells = self.board_cells.clone().expect("a mask plane");
        let ten = self.constant_floats("const.ten", &[10.0]);
        let root = self.node("Sqrt", "board.sqrt", &[&cells], Vec::new());
        let less = self.node("Sub", "board.sub", &[&root, &ten], Vec::new());
        self.node("Div", name, &[&less, &ten], Vec::new())
    }

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

    /// The logits of the moves between two cells, `[N, cells²]`: each
    /// cell's query and key from the policy features (`pairs`, a 1×1
    /// convolution of 2D outputs, queries first), then q(from)·k(to) / √D.
    fn pair_logits(
        &mut self,
        features: &str,
        pairs: &crate::inference::ConvWeights,
        cells: usize,
    ) -> String {
        let depth = pairs.output / 2;
        let queries_keys = self.conv("policy.pairs", features, pairs);
        let shape = self.constant_ints(
            "const.pairs_shape",
            &[-1, pairs.output as i64, cells as i64],
        );
        let flat = self.node(
            "Reshape",
            "policy.pairs.reshape",
            &[&queries_keys, &shape],
            Vec::new(),
        );
        let axes = self.constant_ints("const.axis_planes", &[1]);
        let zero = self.constant_ints("const.pairs_zero", &[0]);
        let middle = self.constant_ints("const.pairs_depth", &[depth as i64]);
        let end = self.constant_ints("const.pairs_end", &[2 * depth as i64]);
        let queries = self.node(
            "Slice",
            "policy.queries",
            &[&flat, &zero, &middle, &axes],
            Vec::new(),
        );
        let keys = self.node(
            "Slice",
            "policy.keys",
            &[&flat, &middle, &end, &axes],
            Vec::new(),
        );
        let queries = self.node(
            "Transpose",
            "policy.queries.transpose",
            &[&queries],
            vec![ints("perm", &[0, 2, 1])],
        );
        let products = self.node("MatMul", "policy.products", &[&queries, &keys], Vec::new());
        let scale = self.constant_floats("const.pairs_scale", &[1.0 / (depth as f32).sqrt()]);
        let scaled = self.node("Mul", "policy.scaled", &[&products, &scale], Vec::new());
        self.flatten("policy.pairs.flatten", &scaled)
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
fn build_graph(weights: &FoldedWeights, config: &NetworkConfig) -> GraphBuilder {
    let mut graph = GraphBuilder {
        nodes: Vec::new(),
        initializers: Vec::new(),
        constants: Vec::new(),
        mask: None,
        board_cells: None,
        grid_cells: config.cells(),
    };
    if let Some(plane) = config.mask_plane {
        let starts = graph.constant_ints("const.mask_start", &[plane as i64]);
        let ends = graph.constant_ints("const.mask_end", &[plane as i64 + 1]);
        let axes = graph.constant_ints("const.axis_planes", &[1]);
        let mask = graph.node(
            "Slice",
            "board.mask",
            &["planes", &starts, &ends, &axes],
            Vec::new(),
        );
        let axes = graph.constant_ints("const.axes_hw", &[2, 3]);
        let cells = graph.node(
            "ReduceSum",
            "board.cells",
            &[&mask, &axes],
            vec![int("keepdims", 0)],
        );
        graph.mask = Some(mask);
        graph.board_cells = Some(cells);
    }
    let stem = graph.conv("stem", "planes", &weights.stem);
    let stem = graph.unary("Relu", "stem.relu", &stem);
    let mut x = graph.mask("stem.mask", &stem);
    for (index, block) in weights.blocks.iter().enumerate() {
        let name = format!("block{index}");
        let hidden = graph.conv(&format!("{name}.first"), &x, &block.first);
        let mut hidden = graph.unary("Relu", &format!("{name}.first.relu"), &hidden);
        if let Some(pooling) = &block.pooling {
            let pooled = graph.pool(&format!("{name}.pool"), &hidden);
            let bias = graph.dense(
                &format!("{name}.pooling"),
                &pooled,
                pooling,
                &format!("{name}.pooling.out"),
            );
            let shape = graph.constant_ints(
                &format!("const.bias_shape{}", pooling.output),
                &[-1, pooling.output as i64, 1, 1],
            );
            let bias = graph.node(
                "Reshape",
                &format!("{name}.pooling.reshape"),
                &[&bias, &shape],
                Vec::new(),
            );
            let sum = graph.add(&format!("{name}.pooling.add"), &hidden, &bias);
            hidden = graph.unary("Relu", &format!("{name}.pooling.relu"), &sum);
        }
        let hidden = graph.mask(&format!("{name}.first.mask"), &hidden);
        let hidden = graph.conv(&format!("{name}.second"), &hidden, &block.second);
        let sum = graph.add(&format!("{name}.add"), &hidden, &x);
        let out = graph.unary("Relu", &format!("{name}.relu"), &sum);
        x = graph.mask(&format!("{name}.mask"), &out);
    }
    let policy = graph.conv("policy.conv", &x, &weights.policy_conv);
    let policy = graph.unary("Relu", "policy.relu", &policy);
    let value = graph.conv("value.conv", &x, &weights.value_conv);
    let value = graph.unary("Relu", "value.relu", &value);
    let board_logits = match (&weights.policy_cells, &weights.policy_pairs) {
        (Some(cells), _) => {
            let logits = graph.conv("policy.cells", &policy, cells);
            Some(graph.flatten("policy.cells.flatten", &logits))
        }
        (None, Some(pairs)) => Some(graph.pair_logits(&policy, pairs, config.cells())),
        (None, None) => None,
    };
    let value = match board_logits {
        None => {
            let linear = weights.policy_linear.as_ref().expect("dense heads");
            let policy = graph.flatten("policy.flatten", &policy);
            graph.dense("policy.linear", &policy, linear, "policy_logits");
            graph.flatten("value.flatten", &value)
        }
        Some(logits) => {
            match &weights.policy_linear {
                Some(linear) => {
                    let pooled = graph.pool("policy.pool", &policy);
                    let extra = graph.dense("policy.linear", &pooled, linear, "policy.linear.out");
                    graph.nodes.push(node(
                        "Concat",
                        "policy.concat",
                        &[&logits, &extra],
                        "policy_logits",
                        vec![int("axis", 1)],
                    ));
                }
                None => {
                    graph.nodes.push(node(
                        "Identity",
                        "policy.identity",
                        &[&logits],
                        "policy_logits",
                        Vec::new(),
                    ));
                }
            }
            graph.pool("value.pool", &value)
        }
    };
    let value = graph.dense(
        "value.hidden",
        &value,
        &weights.value_hidden,
        "value.hidden.out",
    );
    let value = graph.unary("Relu", "value.hidden.relu", &value);
    graph.dense("value.output", &value, &weights.value_output, "wdl_logits");
    if let Some(rules_value) = &weights.rules_value {
        graph.dense("value.rules", &value, rules_value, "rules_wdl_logits");
    }
    graph
}

/// The folded weights in the safetensors format, under the names the ONNX
/// graph gives them (`stem.weight`, `block0.first.bias`, …, `value.output.weight`),
/// with `metadata` in the header.
pub fn safetensors(
    weights: &FoldedWeights,
    config: &NetworkConfig,
    metadata: &[(String, String)],
) -> Result<Vec<u8>, String> {
    let graph = build_graph(weights, config);
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
    let bytes = ::safetensors::tensor::serialize(views, Some(header)).map_err(|e| e.to_string())?;
    Ok(with_sorted_metadata(bytes))
}

/// `bytes`, a safetensors file, with its header's `__metadata__` keys in
/// order: the library writes them from a hash map, in an order that
/// changes from run to run, and an export is the same file every time.
/// The header keeps its length (the same keys and values, compact), so
/// the offsets of the data stand.
fn with_sorted_metadata(mut bytes: Vec<u8>) -> Vec<u8> {
    let Some(length) = bytes
        .get(..8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")) as usize)
    else {
        return bytes;
    };
    let Some(text) = bytes.get(8..8 + length) else {
        return bytes;
    };
    let Ok(mut header) = serde_json::from_slice::<serde_json::Value>(text) else {
        return bytes;
    };
    if let Some(metadata) = header
        .get_mut("__metadata__")
        .and_then(serde_json::Value::as_object_mut)
    {
        let mut entries: Vec<(String, serde_json::Value)> =
            std::mem::take(metadata).into_iter().collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        metadata.extend(entries);
    }
    let Ok(mut sorted) = serde_json::to_vec(&header) else {
        return bytes;
    };
    if sorted.len() > length {
        return bytes;
    }
    // The library pads the header with spaces to its alignment.
    sorted.resize(length, b' ');
    bytes[8..8 + length].copy_from_slice(&sorted);
    bytes
}

/// The ONNX model of `weights`, as bytes, with `metadata` as key/value
/// properties.
pub fn export(
    weights: &FoldedWeights,
    config: &NetworkConfig,
    metadata: &[(String, String)],
) -> Vec<u8> {
    let graph = build_graph(weights, config);
    let model = ModelProto {
        ir_version: IR_VERSION,
        producer_name: "grandmaitre".to_string(),
        producer_version: env!("CARGO_PKG_VERSION").to_string(),
        graph: Some(GraphProto {
            node: graph.nodes,
            name: "grandmaitre".to_string(),
            initializer: graph
                .initializers
                .into_iter()
                .chain(graph.constants)
                .collect(),
            input: vec![value_info(
                "planes",
                &[
                    None,
                    Some(config.input_planes),
                    Some(config.height),
                    Some(config.width),
                ],
            )],
            output: [
                Some(value_info("policy_logits", &[None, Some(config.actions)])),
                Some(value_info("wdl_logits", &[None, Some(3)])),
                weights
                    .rules_value
                    .as_ref()
                    .map(|_| value_info("rules_wdl_logits", &[None, Some(3)])),
            ]
            .into_iter()
            .flatten()
            .collect(),
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
