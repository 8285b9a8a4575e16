// Validates Kubernetes objects against the schemas Kubernetes publishes (its OpenAPI
// definitions, compiled into the kubernetes-models package: Kubernetes 1.27, the version its
// README names). Reads a JSON array of objects on standard input (tests/package/
// test_k8s_manifests.sh turns kustomize's YAML into it), prints one line per object, and exits 1
// if any object fails or has a kind the schemas do not know, 2 on unreadable input.
"use strict";

const fs = require("fs");
const path = require("path");

// apiVersion "apps/v1" -> kubernetes-models/apps/v1/<Kind>; the core group "v1" -> v1/<Kind>.
function modelFor(apiVersion, kind) {
  if (typeof apiVersion !== "string" || typeof kind !== "string" || !/^[A-Za-z0-9]+$/.test(kind))
    return null;
  const parts = apiVersion.split("/");
  if (parts.length > 2 || parts.some((p) => !/^[a-z0-9.]+$/.test(p))) return null;
  const file = path.join("kubernetes-models", ...parts, kind);
  try {
    return require(file)[kind] || null;
  } catch (e) {
    if (e.code === "MODULE_NOT_FOUND") return null;
    throw e;
  }
}

function main() {
  let objects;
  try {
    objects = JSON.parse(fs.readFileSync(0, "utf8"));
  } catch (e) {
    console.error(`validate.js: input is not JSON: ${e.message}`);
    return 2;
  }
  if (!Array.isArray(objects) || objects.length === 0) {
    console.error("validate.js: expected a non-empty JSON array of objects");
    return 2;
  }
  let failed = 0;
  for (const object of objects) {
    const name = `${object && object.kind}/${object && object.metadata && object.metadata.name}`;
    const Model = object ? modelFor(object.apiVersion, object.kind) : null;
    if (!Model) {
      console.log(`FAIL ${name}: no schema for apiVersion ${object && object.apiVersion}`);
      failed++;
      continue;
    }
    try {
      new Model(object).validate();
      console.log(`ok   ${name} (${object.apiVersion})`);
    } catch (e) {
      console.log(`FAIL ${name}: ${e.message}`);
      failed++;
    }
  }
  console.log(`${objects.length - failed} valid, ${failed} invalid`);
  return failed === 0 ? 0 : 1;
}

process.exitCode = main();
