/**
 * @skillsd/client: the TypeScript client of the skillsd REST API
 * (skills-rest), for browsers and Node 20+.
 *
 *     import { SkillsClient, SkillNotFoundError } from "@skillsd/client";
 *     const client = new SkillsClient({ baseUrl: "http://127.0.0.1:8080", token });
 *     for await (const skill of client.iterateSkills({ page_size: 100 })) console.log(skill.skill_path);
 *     const { results } = await client.searchSkills({ query: "write a changelog" });
 *     for await (const change of client.watchCatalog()) console.log(change.generation);
 *
 * The request and answer types are generated from the OpenAPI 3 document of
 * skills-rest (src/gen), itself generated from proto/skills/v1.
 */
export { SkillsClient, type ClientOptions, type Skill } from "./client.js";
export {
  SkillsError,
  SkillNotFoundError,
  FileNotFoundError,
  UnauthenticatedError,
  PermissionDeniedError,
  UnavailableError,
  isSkillsError,
  type ErrorReason,
  type ErrorBody,
} from "./errors.js";
export * from "./gen/operations.js";
export type { components, operations, paths } from "./gen/openapi.js";

import type { components } from "./gen/openapi.js";
/** Every schema of the API by name (v1Skill, v1SearchHit, …). */
export type Schemas = components["schemas"];
