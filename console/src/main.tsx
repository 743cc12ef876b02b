/** The operator console: signs in to the admin API and routes to each screen by URL (under /admin). */
import { StrictMode, useCallback, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, NavLink, Navigate, Route, Routes, useLocation } from 'react-router';
import { call, msSinceLastCall, setCsrfToken, whenSignedOut, type Permission, type Session } from './api/client';
import { SessionContext, useSession } from './session';
import { TwoFactorSetUp } from './pages/TwoFactor';
import { Loading } from './ui';
import { SignIn } from './pages/SignIn';
import { Home } from './pages/Home';
import { Payments } from './pages/Payments';
import { PaymentPage } from './pages/PaymentPage';
import { NeedsAttention } from './pages/NeedsAttention';
import { Merchants } from './pages/Merchants';
import { MerchantPage } from './pages/MerchantPage';
import { Callbacks } from './pages/Callbacks';
import { Users } from './pages/Users';
import { AuditLog } from './pages/AuditLog';
import './styles.css';

const NAV: { to: string; label: string; needs: Permission; end?: boolean }[] = [
  { to: '/', label: 'Home', needs: 'payments.read', end: true },
  { to: '/payments', label: 'Payments', needs: 'payments.read' },
  { to: '/attention', label: 'Needs attention', needs: 'payments.read' },
  { to: '/merchants', label: 'Merchants', needs: 'merchants.read' },
  { to: '/callbacks', label: 'Callbacks', needs: 'callbacks.read' },
  { to: '/users', label: 'Users and tokens', needs: 'users.manage' },
  { to: '/audit', label: 'Audit log', needs: 'audit.read' },
];

function Layout() {
  const { session, signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname]);
  const can = (p: Permission) => session.permissions.includes(p);
  return (
    <div className="shell">
      <a className="skip" href="#main">Skip to content</a>
      <header className="top">
        <span className="brand">Portcullis</span>
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen((o) => !o)}>Menu</button>
        <span className="who">{session.user.email} <span className="role">{session.user.role}</span></span>
        <button type="button" onClick={() => void signOut()}>Sign out</button>
      </header>
      <nav id="nav" aria-label="Console" className={menuOpen ? 'open' : undefined}>
        <ul>
          {NAV.filter((n) => can(n.needs)).map((n) => (
            <li key={n.to}><NavLink to={n.to} end={n.end}>{n.label}</NavLink></li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Routes>
          <Route path="/" element={<Home />} />
          <Route path="/payments" element={<Payments />} />
          <Route path="/payments/:id" element={<PaymentPage />} />
          <Route path="/attention" element={<NeedsAttention />} />
          <Route path="/merchants" element={<Merchants />} />
          <Route path="/merchants/:id/*" element={<MerchantPage />} />
          <Route path="/callbacks" element={<Callbacks />} />
          <Route path="/users" element={<Users />} />
          <Route path="/audit" element={<AuditLog />} />
          <Route path="/sign-in" element={<Navigate to="/" replace />} />
          <Route path="*" element={<p className="state">No such page. <NavLink to="/">Home</NavLink></p>} />
        </Routes>
      </main>
    </div>
  );
}

/**
 * Ends the console's side of a session idle past the API's idle timeout: asking the API then answers 401, which
 * signs the console out (the API ended the session already; nothing is extended, since nothing was asked sooner).
 */
function useIdleSignOut(session: Session | null | undefined) {
  useEffect(() => {
    if (!session) return;
    const limit = session.idle_timeout_seconds * 1000;
    const timer = setInterval(() => {
      if (msSinceLastCall() > limit) void call('get', '/admin/v1/me').catch(() => undefined);
    }, Math.min(30_000, limit / 4));
    return () => clearInterval(timer);
  }, [session]);
}

function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const adopt = useCallback((s: Session | null) => {
    setCsrfToken(s?.csrf_token);
    setSession(s);
    if (s) setEnded(false);
  }, []);
  useEffect(() => {
    whenSignedOut(() => { setEnded(true); adopt(null); });
    call('get', '/admin/v1/session').then(adopt, () => adopt(null));
  }, [adopt]);
  useIdleSignOut(session);
  if (session === undefined) return <Loading what="the console" />;
  if (session === null) return <SignIn onSignedIn={adopt} notice={ended ? 'Your session ended (idle for too long, or signed out elsewhere). Sign in again.' : undefined} />;
  const signOut = async () => {
    await call('delete', '/admin/v1/session').catch(() => undefined);
    adopt(null);
  };
  if (session.two_factor_enrolment_required) {
    return <TwoFactorSetUp onDone={() => void call('get', '/admin/v1/session').then(adopt, () => adopt(null))} onSignOut={() => void signOut()} />;
  }
  return (
    <SessionContext.Provider value={{ session, signOut }}>
      <Layout />
    </SessionContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter basename="/admin">
      <App />
    </BrowserRouter>
  </StrictMode>,
);
