/** Who is signed in and what their role permits: screens and buttons a role may not use are not shown. */
import { createContext, useContext } from 'react';
import type { Permission, Session } from './api/client';

export interface SessionState {
  session: Session;
  signOut(): Promise<void>;
}

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside the signed-in console');
  return state;
}

export function useCan(): (permission: Permission) => boolean {
  const { session } = useSession();
  return (permission) => session.permissions.includes(permission);
}
