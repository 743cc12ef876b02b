/** Who is signed in to the portal, their merchants, and what their role permits (screens a role may not use are not shown). */
import { createContext, useContext } from 'react';
import type { Permission, Session } from './api';

export interface PortalSessionState {
  session: Session;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<PortalSessionState | null>(null);

export function useSession(): PortalSessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside the signed-in portal');
  return state;
}

export function useCan(): (permission: Permission) => boolean {
  const { session } = useSession();
  return (permission) => session.permissions.includes(permission);
}
