import { ClientTree } from '../delivery/client-tree';
import type { Alert } from '../schemas/alert';
import type { StoredUser } from '../schemas/directory';
import { getUser } from '../store/directory-store';

/**
 * The fleetwatch user a link was sent to, when that user may still act on the alert: checked each time the link
 * acts, as the Telegram buttons check whoever presses them: enabled, with write rights, and of the alert's client
 * or a client above it. Null otherwise (disabled, read-only, moved elsewhere, or gone).
 */
export async function actingUser(userId: string, alert: Pick<Alert, 'parentId'>): Promise<StoredUser | null> {
  const user = await getUser(userId);
  if (!user?.isEnabled || user.isReadOnly) return null;
  return (await new ClientTree().isWithin(alert.parentId, user.parentId)) ? user : null;
}
