// Compile-time checks of the generated types (tsc -p test, run by npm test):
// each line states what a caller may write, and the @ts-expect-error lines
// what the types must refuse.
import { SkillsClient, SkillNotFoundError, type Schemas, type SearchSkillsRequest } from "../src/index.js";

export async function typed(client: SkillsClient): Promise<void> {
  const page = await client.listSkills({ page_size: 10, tags: ["go"], routable_only: true });
  const path: string = page.skills[0]!.skill_path;
  const gen: string = (await client.getCatalogStatus()).generation; // int64 as string
  const built: string | null = (await client.getCatalogStatus()).built_at; // unset message: null
  const got = await client.getSkill({ skill_path: path });
  const size: string = got.files[0]!.size_bytes;
  const mode: SearchSkillsRequest["mode"] = "SEARCH_MODE_ALL_TERMS";
  const hits = await client.searchSkills({ query: "x", mode });
  const score: number = hits.results[0]!.score;
  const hit: Schemas["v1SearchHit"] = hits.results[0]!;
  for await (const change of client.watchCatalog()) {
    const added: string[] = change.added;
    void added;
  }
  try {
    await client.getSkill({ skill_path: "x" });
  } catch (e) {
    if (e instanceof SkillNotFoundError) {
      const s: string[] = e.suggestions;
      void s;
    }
  }
  // @ts-expect-error skill_path is required
  await client.getSkill({});
  // @ts-expect-error page_size is a number
  await client.listSkills({ page_size: "10" });
  // @ts-expect-error the mode is one of the enum's names
  await client.searchSkills({ query: "x", mode: "FAST" });
  // @ts-expect-error no such operation
  await client.deleteSkill({});
  void gen, built, size, score, hit;
}
