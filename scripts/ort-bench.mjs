// Times onnxruntime (onnxruntime-node, native CPU) on an exported model:
// positions per second at each batch size, planes filled with 0/1 values.
// Usage: node ort-bench.mjs MODEL.onnx PLANES HEIGHT WIDTH BATCHES SECONDS THREADS
import * as ort from 'onnxruntime-node';

const [model, planes, height, width, batchList, seconds, threads] = process.argv.slice(2);
const session = await ort.InferenceSession.create(model, {
  intraOpNumThreads: Number(threads),
  interOpNumThreads: 1,
  graphOptimizationLevel: 'all',
});
const perPosition = Number(planes) * Number(height) * Number(width);
for (const batch of batchList.split(',').map(Number)) {
  const data = new Float32Array(batch * perPosition);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7919) % 5 === 0 ? 1 : 0;
  const feeds = { planes: new ort.Tensor('float32', data, [batch, Number(planes), Number(height), Number(width)]) };
  await session.run(feeds); // warm-up
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < Number(seconds) || calls < 3) {
    await session.run(feeds);
    calls++;
    elapsed = Number(process.hrtime.bigint() - start) / 1e9;
  }
  console.log(`onnxruntime batch ${batch}: ${((calls * batch) / elapsed).toFixed(0)} positions/s`);
}
