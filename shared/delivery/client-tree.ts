import { getAgent } from '../store/directory-store';

/** Deeper than any real client hierarchy; a cycle in bad data stops here. */
const MAX_DEPTH = 32;

/**
 * Answers "is client A the client R or below it?" by walking up A's parents, one read per level, remembered for
 * the life of the instance (one delivery). Walking up costs the depth of the tree, never its breadth.
 */
export class ClientTree {
  private readonly parents = new Map<string, Promise<string | null>>();

  private parentOf(agentId: string): Promise<string | null> {
    let parent = this.parents.get(agentId);
    if (!parent) {
      parent = getAgent(agentId).then((agent) => agent?.parentId ?? null);
      this.parents.set(agentId, parent);
    }
    return parent;
  }

  async isWithin(agentId: string, rootId: string): Promise<boolean> {
    let current: string | null = agentId;
    for (let depth = 0; current && depth < MAX_DEPTH; depth++) {
      if (current === rootId) return true;
      current = await this.parentOf(current);
    }
    return false;
  }
}
