/**
 * The merchant portal (issue 30): a client of /portal/v1, which scopes everything to the signed-in user's
 * merchants (the screens hide what a role may not do; the API refuses it). Routes by URL under /portal.
 */
import { StrictMode, useCallback, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter, NavLink, Route, Routes, useLocation } from 'react-router';
import { call, msSinceLastCall, setCsrfToken, whenSignedOut, type Permission, type Session } from './api';
import { SessionContext, useSession } from './session';
import { Loading } from '../../console/src/ui';
import { SharedLocaleContext } from '../../console/src/locale';
import { I18nContext, applyLanguage, i18nFor, initialLanguage, rememberLanguage, roleName, sharedSay, useT, type Key, type Language } from './i18n';
import { LanguagePicker } from './language-picker';
import { SignIn } from './pages/SignIn';
import { Invitation } from './pages/Invitation';
import { TwoFactorSetUp, Security } from './pages/TwoFactor';
import { Home } from './pages/Home';
import { Payments } from './pages/Payments';
import { PaymentPage } from './pages/PaymentPage';
import { Disputes, DisputePage } from './pages/Disputes';
import { Developers } from './pages/Developers';
import { Team } from './pages/Team';
import { Reports } from './pages/Reports';
import '../../console/src/styles.css';

const NAV: { to: string; label: Key; needs?: Permission; end?: boolean }[] = [
  { to: '/', label: 'nav.home', needs: 'payments.read', end: true },
  { to: '/payments', label: 'nav.payments', needs: 'payments.read' },
  { to: '/disputes', label: 'nav.disputes', needs: 'payments.read' },
  { to: '/reports', label: 'nav.reports', needs: 'payments.read' },
  { to: '/developers', label: 'nav.developers', needs: 'developers.read' },
  { to: '/team', label: 'nav.team', needs: 'team.read' },
  { to: '/security', label: 'nav.security' },
];

function Layout() {
  const { session, signOut } = useSession();
  const t = useT();
  const [menuOpen, setMenuOpen] = useState(false);
  const location = useLocation();
  useEffect(() => setMenuOpen(false), [location.pathname]);
  const can = (p?: Permission) => !p || session.permissions.includes(p);
  const sandbox = session.merchants.every((m) => m.sandbox);
  return (
    <div className="shell">
      <a className="skip" href="#main">{t('shell.skip')}</a>
      <header className="top">
        <span className="brand">{session.merchants.map((m) => m.name).join(', ') || 'Portcullis'}</span>
        <span className={`badge ${sandbox ? 'badge-pending' : 'badge-settled'}`}>{sandbox ? t('shell.sandbox') : t('shell.live')}</span>
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen((o) => !o)}>{t('shell.menu')}</button>
        <span className="who">{session.user.email} <span className="role">{roleName(t, session.user.role)}</span></span>
        <LanguagePicker />
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
          <Route path="/disputes" element={<Disputes />} />
          <Route path="/disputes/:id" element={<DisputePage />} />
          <Route path="/reports" element={<Reports />} />
          <Route path="/developers" element={<Developers />} />
          <Route path="/team" element={<Team />} />
          <Route path="/security" element={<Security />} />
          <Route path="*" element={<p className="state">{t('shell.noPage')} <NavLink to="/">{t('nav.home')}</NavLink></p>} />
        </Routes>
      </main>
    </div>
  );
}

/** As the console: a session idle past the API's timeout is ended by asking the API, which then answers 401. */
function useIdleSignOut(session: Session | null | undefined) {
  useEffect(() => {
    if (!session) return;
    const limit = session.idle_timeout_seconds * 1000;
    const timer = setInterval(() => {
      if (msSinceLastCall() > limit) void call('get', '/portal/v1/two-factor').catch(() => undefined);
    }, Math.min(30_000, limit / 4));
    return () => clearInterval(timer);
  }, [session]);
}

function App() {
  const t = useT();
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const adopt = useCallback((s: Session | null) => {
    setCsrfToken(s?.csrf_token);
    setSession(s);
    if (s) setEnded(false);
  }, []);
  const reread = useCallback(() => void call('get', '/portal/v1/session').then(adopt, () => adopt(null)), [adopt]);
  useEffect(() => {
    whenSignedOut(() => { setEnded(true); adopt(null); });
    reread();
  }, [adopt, reread]);
  useIdleSignOut(session);
  const location = useLocation();
  // The e-mailed link: open without a session (the token is in the fragment, never sent to the server).
  if (location.pathname === '/invitation') return <Invitation />;
  if (session === undefined) return <Loading what={t('shell.loadingWhat')} />;
  if (session === null) return <SignIn onSignedIn={adopt} notice={ended ? t('shell.sessionEnded') : undefined} />;
  const signOut = async () => {
    await call('delete', '/portal/v1/session').catch(() => undefined);
    adopt(null);
  };
  if (session.two_factor_enrolment_required) return <TwoFactorSetUp mandatory onDone={reread} onSignOut={() => void signOut()} />;
  return (
    <SessionContext.Provider value={{ session, signOut }}>
      <Layout />
    </SessionContext.Provider>
  );
}

/** The user's language around the whole portal, sign-in included; the shared pieces speak it too. */
function Localized() {
  const [language, setLanguage] = useState<Language>(initialLanguage);
  const i18n = useMemo(() => i18nFor(language, (l: Language) => { rememberLanguage(l); setLanguage(l); }), [language]);
  useEffect(() => {
    applyLanguage(language);
    document.title = i18n.t('shell.documentTitle');
  }, [language, i18n]);
  const shared = useMemo(() => ({ locale: i18n.locale, language, say: sharedSay(i18n.t) }), [i18n, language]);
  return (
    <I18nContext.Provider value={i18n}>
      <SharedLocaleContext.Provider value={shared}>
        <App />
      </SharedLocaleContext.Provider>
    </I18nContext.Provider>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <BrowserRouter basename="/portal">
      <Localized />
    </BrowserRouter>
  </StrictMode>,
);
