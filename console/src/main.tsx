/** The operator console: signs in to the admin API and routes to each screen by URL (under /admin). */
import { StrictMode, useCallback, useEffect, useMemo, useState } from 'react';
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
import { Disputes } from './pages/Disputes';
import { DisputePage } from './pages/DisputePage';
import { DisputeRatios } from './pages/DisputeRatios';
import { Users } from './pages/Users';
import { AuditLog } from './pages/AuditLog';
import { Risk } from './pages/Risk';
import { MoneyPage } from './pages/Money';
import { ReconciliationPage } from './pages/Reconciliation';
import { LanguageContext, applyLanguage, fill, initialLanguage, rememberLanguage, translatorFor, useT, type Key, type Language } from './i18n';
import { SharedLocaleContext, type SharedKey } from './locale';
import { Preferences, Shortcuts, applyTheme, storedTheme } from './comfort';
import { ModeContext, ModeSwitch, initialMode, rememberMode, type KeyMode } from './mode';
import './styles.css';

const NAV: { to: string; label: Key; needs: Permission; end?: boolean }[] = [
  { to: '/', label: 'nav.home', needs: 'payments.read', end: true },
  { to: '/payments', label: 'nav.payments', needs: 'payments.read' },
  { to: '/attention', label: 'nav.attention', needs: 'payments.read' },
  { to: '/merchants', label: 'nav.merchants', needs: 'merchants.read' },
  { to: '/risk', label: 'nav.risk', needs: 'risk.read' },
  { to: '/disputes', label: 'nav.disputes', needs: 'payments.read' },
  { to: '/callbacks', label: 'nav.callbacks', needs: 'callbacks.read' },
  { to: '/money', label: 'nav.money', needs: 'money.read' },
  { to: '/reconciliation', label: 'nav.reconciliation', needs: 'reconciliation.read' },
  { to: '/users', label: 'nav.users', needs: 'users.manage' },
  { to: '/audit', label: 'nav.audit', needs: 'audit.read' },
];

function Layout() {
  const { session, signOut } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname]);
  const can = (p: Permission) => session.permissions.includes(p);
  const t = useT();
  return (
    <div className="shell">
      <a className="skip" href="#main">{t('shell.skip')}</a>
      <header className="top">
        <span className="brand">Portcullis</span>
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen((o) => !o)}>{t('shell.menu')}</button>
        <span className="who">{session.user.email} <span className="role">{session.user.role}</span></span>
        <ModeSwitch />
        <Preferences />
        <Shortcuts />
        <button type="button" onClick={() => void signOut()}>{t('shell.signOut')}</button>
      </header>
      <nav id="nav" aria-label={t('nav.label')} className={menuOpen ? 'open' : undefined}>
        <ul>
          {NAV.filter((n) => can(n.needs)).map((n) => (
            <li key={n.to}><NavLink to={n.to} end={n.end}>{t(n.label)}</NavLink></li>
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
          <Route path="/disputes" element={<Disputes />} />
          <Route path="/disputes/ratios" element={<DisputeRatios />} />
          <Route path="/disputes/:id" element={<DisputePage />} />
          <Route path="/callbacks" element={<Callbacks />} />
          <Route path="/money/*" element={<MoneyPage />} />
          <Route path="/reconciliation/*" element={<ReconciliationPage />} />
          <Route path="/users" element={<Users />} />
          <Route path="/audit" element={<AuditLog />} />
          <Route path="/risk/*" element={<Risk />} />
          <Route path="/sign-in" element={<Navigate to="/" replace />} />
          <Route path="*" element={<p className="state">{t('shell.noPage')} <NavLink to="/">{t('nav.home')}</NavLink></p>} />
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
  const [mode, setMode] = useState<KeyMode>(initialMode);
  const modeValue = useMemo(() => ({ mode, setMode: (m: KeyMode) => { rememberMode(m); setMode(m); } }), [mode]);
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
      <ModeContext.Provider value={modeValue}>
        <Layout />
      </ModeContext.Provider>
    </SessionContext.Provider>
  );
}

/** The operator's language (issue 31 item 11) around the whole console, sign-in included. */
function Localized() {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  useEffect(() => applyLanguage(language), [language]);
  const value = useMemo(() => ({ language, t: translatorFor(language), setLanguage: (l: Language) => { rememberLanguage(l); setLanguage(l); } }), [language]);
  // The shared pieces (loading, try again, cancel, copy, the charts) say their words in it too; amounts and times keep
  // the browser's own formats (locale undefined), as before.
  const shared = useMemo(() => ({ locale: undefined, language, say: (key: SharedKey, params?: Readonly<Record<string, string | number>>) => fill(value.t(key), params ?? {}) }), [value, language]);
  return (
    <LanguageContext.Provider value={value}>
      <SharedLocaleContext.Provider value={shared}>
        <App />
      </SharedLocaleContext.Provider>
    </LanguageContext.Provider>
  );
}

// The stored theme before the first paint (no light flash for a dark-mode operator).
applyTheme(storedTheme());

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter basename="/admin">
      <Localized />
    </BrowserRouter>
  </StrictMode>,
);
