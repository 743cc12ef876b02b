/**
 * The console in the payer pages' seven languages (issue 31 item 11): a catalog per language, the operator's choice
 * kept in this browser (localStorage), else English. The chosen language sets the
 * document's lang and dir (Arabic right to left). Translated so far: the shell (header, menu, skip link, theme,
 * language, shortcuts), the sign-in screen, the main screens' titles, Payments, and (i18n-screens.ts) Home,
 * Merchants and Callbacks, and (i18n-merchant.ts) a merchant's page with its Settings, MIDs, Wallets and Webhooks tabs, (i18n-payment.ts) Routing,
 * PaymentPage, PaymentTimeline, BulkRefund and TwoFactor, (i18n-money.ts) Money and Reconciliation, (i18n-disputes.ts) Disputes, a
 * dispute's page, Dispute ratios, the Audit log, Users and Needs attention, (i18n-risk.ts) Risk, RiskRules, RiskLists,
 * RiskBacktest, RiskScope and PaymentRisk; the other screens' own texts are English yet.
 */
import { createContext, useContext } from 'react';
import { SCREENS, SCREENS_EN } from './i18n-screens.ts';
import { AREAS, AREAS_EN } from './i18n-areas.ts';

export const LANGUAGES = ['en', 'es', 'pt-BR', 'fr', 'de', 'ar', 'tr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language by its own name. */
export const LANGUAGE_NAMES: Readonly<Record<Language, string>> = { en: 'English', es: 'Español', 'pt-BR': 'Português', fr: 'Français', de: 'Deutsch', ar: 'العربية', tr: 'Türkçe' };

const SHELL_EN = {
  'shell.skip': 'Skip to content',
  'shell.menu': 'Menu',
  'shell.signOut': 'Sign out',
  'shell.language': 'Language',
  'shell.theme': 'Theme',
  'shell.themeSystem': 'System',
  'shell.themeLight': 'Light',
  'shell.themeDark': 'Dark',
  'shell.mode': 'Keys',
  'shell.modeAll': 'Test and live',
  'shell.modeTest': 'Test only',
  'shell.modeLive': 'Live only',
  'shell.shortcuts': 'Keyboard shortcuts',
  'shell.close': 'Close',
  'shell.noPage': 'No such page.',
  'nav.label': 'Console',
  'nav.home': 'Home',
  'nav.payments': 'Payments',
  'nav.attention': 'Needs attention',
  'nav.merchants': 'Merchants',
  'nav.risk': 'Risk',
  'nav.disputes': 'Disputes',
  'nav.callbacks': 'Callbacks',
  'nav.money': 'Money',
  'nav.reconciliation': 'Reconciliation',
  'nav.users': 'Users and tokens',
  'nav.audit': 'Audit log',
  'keys.search': 'Search (the screen\'s search, or the payments search)',
  'keys.goHome': 'Go to Home',
  'keys.goPayments': 'Go to Payments',
  'keys.goMerchants': 'Go to Merchants',
  'keys.goCallbacks': 'Go to Callbacks',
  'keys.goDisputes': 'Go to Disputes',
  'keys.goAudit': 'Go to the audit log',
  'keys.help': 'Show these shortcuts',
  'keys.then': 'then',
  'signIn.title': 'Portcullis console',
  'signIn.email': 'E-mail',
  'signIn.password': 'Password',
  'signIn.code': 'Code from your authenticator app (or a recovery code)',
  'signIn.submit': 'Sign in',
  'signIn.busy': 'Signing in…',
  'signIn.hint': 'Operators get a password from an admin (console or npm run admin -- user create).',
  'unsaved.leave': 'You have unsaved changes. Leave this page and lose them?',
  'payments.cardLast4': 'Card last 4',
  'payments.cardFirst6': 'Card first 6',
  'payments.email': 'Payer e-mail',
  'payments.order': 'Order id',
  'payments.more': 'More filters',
  'payments.search': 'Search',
  'payments.clear': 'Clear',
  'payments.export': 'Export CSV',
  'payments.exporting': 'Exporting…',
  'payments.none': 'No payment matches these filters.',
  'payments.loadMore': 'Load more',
  'col.created': 'Created',
  'col.merchant': 'Merchant',
  'col.order': 'Order',
  'col.status': 'Status',
  'col.amount': 'Amount',
  'col.card': 'Card',
  'col.payer': 'Payer',
  'col.method': 'Method',
} as const;
const EN = { ...SHELL_EN, ...SCREENS_EN, ...AREAS_EN } as const;
export type Key = keyof typeof EN;
type Catalog = Readonly<Record<Key, string>>;

export const CATALOGS: Readonly<Record<Language, Catalog>> = {
  en: EN,
  es: {
    ...SCREENS['es'],
    ...AREAS['es'],
    'shell.skip': 'Saltar al contenido', 'shell.menu': 'Menú', 'shell.signOut': 'Cerrar sesión', 'shell.language': 'Idioma', 'shell.theme': 'Tema',
    'shell.themeSystem': 'Sistema', 'shell.themeLight': 'Claro', 'shell.themeDark': 'Oscuro', 'shell.mode': 'Claves', 'shell.modeAll': 'Prueba y real', 'shell.modeTest': 'Solo prueba', 'shell.modeLive': 'Solo real', 'shell.shortcuts': 'Atajos de teclado', 'shell.close': 'Cerrar',
    'shell.noPage': 'No existe esta página.', 'nav.label': 'Consola', 'nav.home': 'Inicio', 'nav.payments': 'Pagos', 'nav.attention': 'Requiere atención',
    'nav.merchants': 'Comercios', 'nav.risk': 'Riesgo', 'nav.disputes': 'Disputas', 'nav.callbacks': 'Notificaciones', 'nav.money': 'Dinero',
    'nav.reconciliation': 'Conciliación', 'nav.users': 'Usuarios y tokens', 'nav.audit': 'Registro de auditoría',
    'keys.search': 'Buscar (la búsqueda de la pantalla, o la de pagos)', 'keys.goHome': 'Ir a Inicio', 'keys.goPayments': 'Ir a Pagos', 'keys.goMerchants': 'Ir a Comercios',
    'keys.goCallbacks': 'Ir a Notificaciones', 'keys.goDisputes': 'Ir a Disputas', 'keys.goAudit': 'Ir al registro de auditoría', 'keys.help': 'Mostrar estos atajos', 'keys.then': 'después',
    'signIn.title': 'Consola de Portcullis', 'signIn.email': 'Correo electrónico', 'signIn.password': 'Contraseña', 'signIn.code': 'Código de tu app de autenticación (o un código de recuperación)',
    'signIn.submit': 'Iniciar sesión', 'signIn.busy': 'Iniciando sesión…', 'signIn.hint': 'Un administrador da la contraseña a los operadores (consola o npm run admin -- user create).',
    'unsaved.leave': 'Hay cambios sin guardar. ¿Salir de esta página y perderlos?',
    'payments.cardLast4': "Últimos 4 de la tarjeta",
    'payments.cardFirst6': "Primeros 6 de la tarjeta",
    'payments.email': "Correo del pagador",
    'payments.order': "Id del pedido",
    'payments.more': "Más filtros",
    'payments.search': "Buscar",
    'payments.clear': "Limpiar",
    'payments.export': "Exportar CSV",
    'payments.exporting': "Exportando…",
    'payments.none': "Ningún pago coincide con estos filtros.",
    'payments.loadMore': "Cargar más",
    'col.created': "Creado",
    'col.merchant': "Comercio",
    'col.order': "Pedido",
    'col.status': "Estado",
    'col.amount': "Importe",
    'col.card': "Tarjeta",
    'col.payer': "Pagador",
    'col.method': "Método",
  },
  'pt-BR': {
    ...SCREENS['pt-BR'],
    ...AREAS['pt-BR'],
    'shell.skip': 'Pular para o conteúdo', 'shell.menu': 'Menu', 'shell.signOut': 'Sair', 'shell.language': 'Idioma', 'shell.theme': 'Tema',
    'shell.themeSystem': 'Sistema', 'shell.themeLight': 'Claro', 'shell.themeDark': 'Escuro', 'shell.mode': 'Chaves', 'shell.modeAll': 'Teste e produção', 'shell.modeTest': 'Só teste', 'shell.modeLive': 'Só produção', 'shell.shortcuts': 'Atalhos de teclado', 'shell.close': 'Fechar',
    'shell.noPage': 'Esta página não existe.', 'nav.label': 'Console', 'nav.home': 'Início', 'nav.payments': 'Pagamentos', 'nav.attention': 'Requer atenção',
    'nav.merchants': 'Lojistas', 'nav.risk': 'Risco', 'nav.disputes': 'Disputas', 'nav.callbacks': 'Notificações', 'nav.money': 'Dinheiro',
    'nav.reconciliation': 'Conciliação', 'nav.users': 'Usuários e tokens', 'nav.audit': 'Registro de auditoria',
    'keys.search': 'Buscar (a busca da tela, ou a de pagamentos)', 'keys.goHome': 'Ir para Início', 'keys.goPayments': 'Ir para Pagamentos', 'keys.goMerchants': 'Ir para Lojistas',
    'keys.goCallbacks': 'Ir para Notificações', 'keys.goDisputes': 'Ir para Disputas', 'keys.goAudit': 'Ir para o registro de auditoria', 'keys.help': 'Mostrar estes atalhos', 'keys.then': 'depois',
    'signIn.title': 'Console do Portcullis', 'signIn.email': 'E-mail', 'signIn.password': 'Senha', 'signIn.code': 'Código do seu app autenticador (ou um código de recuperação)',
    'signIn.submit': 'Entrar', 'signIn.busy': 'Entrando…', 'signIn.hint': 'Operadores recebem a senha de um administrador (console ou npm run admin -- user create).',
    'unsaved.leave': 'Há alterações não salvas. Sair desta página e perdê-las?',
    'payments.cardLast4': "Últimos 4 do cartão",
    'payments.cardFirst6': "Primeiros 6 do cartão",
    'payments.email': "E-mail do pagador",
    'payments.order': "Id do pedido",
    'payments.more': "Mais filtros",
    'payments.search': "Buscar",
    'payments.clear': "Limpar",
    'payments.export': "Exportar CSV",
    'payments.exporting': "Exportando…",
    'payments.none': "Nenhum pagamento corresponde a estes filtros.",
    'payments.loadMore': "Carregar mais",
    'col.created': "Criado",
    'col.merchant': "Lojista",
    'col.order': "Pedido",
    'col.status': "Status",
    'col.amount': "Valor",
    'col.card': "Cartão",
    'col.payer': "Pagador",
    'col.method': "Método",
  },
  fr: {
    ...SCREENS['fr'],
    ...AREAS['fr'],
    'shell.skip': 'Aller au contenu', 'shell.menu': 'Menu', 'shell.signOut': 'Se déconnecter', 'shell.language': 'Langue', 'shell.theme': 'Thème',
    'shell.themeSystem': 'Système', 'shell.themeLight': 'Clair', 'shell.themeDark': 'Sombre', 'shell.mode': 'Clés', 'shell.modeAll': 'Test et production', 'shell.modeTest': 'Test seulement', 'shell.modeLive': 'Production seulement', 'shell.shortcuts': 'Raccourcis clavier', 'shell.close': 'Fermer',
    'shell.noPage': 'Cette page n\'existe pas.', 'nav.label': 'Console', 'nav.home': 'Accueil', 'nav.payments': 'Paiements', 'nav.attention': 'À traiter',
    'nav.merchants': 'Marchands', 'nav.risk': 'Risque', 'nav.disputes': 'Litiges', 'nav.callbacks': 'Notifications', 'nav.money': 'Argent',
    'nav.reconciliation': 'Rapprochement', 'nav.users': 'Utilisateurs et jetons', 'nav.audit': 'Journal d\'audit',
    'keys.search': 'Rechercher (la recherche de l\'écran, ou celle des paiements)', 'keys.goHome': 'Aller à l\'accueil', 'keys.goPayments': 'Aller aux paiements', 'keys.goMerchants': 'Aller aux marchands',
    'keys.goCallbacks': 'Aller aux notifications', 'keys.goDisputes': 'Aller aux litiges', 'keys.goAudit': 'Aller au journal d\'audit', 'keys.help': 'Afficher ces raccourcis', 'keys.then': 'puis',
    'signIn.title': 'Console Portcullis', 'signIn.email': 'E-mail', 'signIn.password': 'Mot de passe', 'signIn.code': 'Code de votre application d\'authentification (ou un code de secours)',
    'signIn.submit': 'Se connecter', 'signIn.busy': 'Connexion…', 'signIn.hint': 'Un administrateur donne leur mot de passe aux opérateurs (console ou npm run admin -- user create).',
    'unsaved.leave': 'Des modifications ne sont pas enregistrées. Quitter cette page et les perdre ?',
    'payments.cardLast4': "4 derniers chiffres",
    'payments.cardFirst6': "6 premiers chiffres",
    'payments.email': "E-mail du payeur",
    'payments.order': "N° de commande",
    'payments.more': "Plus de filtres",
    'payments.search': "Rechercher",
    'payments.clear': "Effacer",
    'payments.export': "Exporter en CSV",
    'payments.exporting': "Export…",
    'payments.none': "Aucun paiement ne correspond à ces filtres.",
    'payments.loadMore': "Charger plus",
    'col.created': "Créé",
    'col.merchant': "Marchand",
    'col.order': "Commande",
    'col.status': "Statut",
    'col.amount': "Montant",
    'col.card': "Carte",
    'col.payer': "Payeur",
    'col.method': "Moyen",
  },
  de: {
    ...SCREENS['de'],
    ...AREAS['de'],
    'shell.skip': 'Zum Inhalt springen', 'shell.menu': 'Menü', 'shell.signOut': 'Abmelden', 'shell.language': 'Sprache', 'shell.theme': 'Darstellung',
    'shell.themeSystem': 'System', 'shell.themeLight': 'Hell', 'shell.themeDark': 'Dunkel', 'shell.mode': 'Schlüssel', 'shell.modeAll': 'Test und live', 'shell.modeTest': 'Nur Test', 'shell.modeLive': 'Nur live', 'shell.shortcuts': 'Tastenkürzel', 'shell.close': 'Schließen',
    'shell.noPage': 'Diese Seite gibt es nicht.', 'nav.label': 'Konsole', 'nav.home': 'Start', 'nav.payments': 'Zahlungen', 'nav.attention': 'Zu erledigen',
    'nav.merchants': 'Händler', 'nav.risk': 'Risiko', 'nav.disputes': 'Streitfälle', 'nav.callbacks': 'Benachrichtigungen', 'nav.money': 'Geld',
    'nav.reconciliation': 'Abstimmung', 'nav.users': 'Benutzer und Tokens', 'nav.audit': 'Audit-Protokoll',
    'keys.search': 'Suchen (die Suche der Ansicht oder die Zahlungssuche)', 'keys.goHome': 'Zur Startseite', 'keys.goPayments': 'Zu den Zahlungen', 'keys.goMerchants': 'Zu den Händlern',
    'keys.goCallbacks': 'Zu den Benachrichtigungen', 'keys.goDisputes': 'Zu den Streitfällen', 'keys.goAudit': 'Zum Audit-Protokoll', 'keys.help': 'Diese Kürzel zeigen', 'keys.then': 'dann',
    'signIn.title': 'Portcullis-Konsole', 'signIn.email': 'E-Mail', 'signIn.password': 'Passwort', 'signIn.code': 'Code Ihrer Authenticator-App (oder ein Wiederherstellungscode)',
    'signIn.submit': 'Anmelden', 'signIn.busy': 'Anmeldung…', 'signIn.hint': 'Operatoren erhalten ihr Passwort von einem Admin (Konsole oder npm run admin -- user create).',
    'unsaved.leave': 'Es gibt ungespeicherte Änderungen. Seite verlassen und sie verwerfen?',
    'payments.cardLast4': "Letzte 4 der Karte",
    'payments.cardFirst6': "Erste 6 der Karte",
    'payments.email': "E-Mail des Zahlers",
    'payments.order': "Bestellnummer",
    'payments.more': "Weitere Filter",
    'payments.search': "Suchen",
    'payments.clear': "Zurücksetzen",
    'payments.export': "CSV exportieren",
    'payments.exporting': "Export läuft…",
    'payments.none': "Keine Zahlung passt zu diesen Filtern.",
    'payments.loadMore': "Mehr laden",
    'col.created': "Erstellt",
    'col.merchant': "Händler",
    'col.order': "Bestellung",
    'col.status': "Status",
    'col.amount': "Betrag",
    'col.card': "Karte",
    'col.payer': "Zahler",
    'col.method': "Methode",
  },
  ar: {
    ...SCREENS['ar'],
    ...AREAS['ar'],
    'shell.skip': 'انتقل إلى المحتوى', 'shell.menu': 'القائمة', 'shell.signOut': 'تسجيل الخروج', 'shell.language': 'اللغة', 'shell.theme': 'المظهر',
    'shell.themeSystem': 'النظام', 'shell.themeLight': 'فاتح', 'shell.themeDark': 'داكن', 'shell.mode': 'المفاتيح', 'shell.modeAll': 'الاختبار والإنتاج', 'shell.modeTest': 'الاختبار فقط', 'shell.modeLive': 'الإنتاج فقط', 'shell.shortcuts': 'اختصارات لوحة المفاتيح', 'shell.close': 'إغلاق',
    'shell.noPage': 'هذه الصفحة غير موجودة.', 'nav.label': 'وحدة التحكم', 'nav.home': 'الرئيسية', 'nav.payments': 'المدفوعات', 'nav.attention': 'تحتاج إلى متابعة',
    'nav.merchants': 'التجار', 'nav.risk': 'المخاطر', 'nav.disputes': 'النزاعات', 'nav.callbacks': 'الإشعارات', 'nav.money': 'الأموال',
    'nav.reconciliation': 'التسوية', 'nav.users': 'المستخدمون والرموز', 'nav.audit': 'سجل التدقيق',
    'keys.search': 'البحث (بحث الشاشة أو بحث المدفوعات)', 'keys.goHome': 'الانتقال إلى الرئيسية', 'keys.goPayments': 'الانتقال إلى المدفوعات', 'keys.goMerchants': 'الانتقال إلى التجار',
    'keys.goCallbacks': 'الانتقال إلى الإشعارات', 'keys.goDisputes': 'الانتقال إلى النزاعات', 'keys.goAudit': 'الانتقال إلى سجل التدقيق', 'keys.help': 'عرض هذه الاختصارات', 'keys.then': 'ثم',
    'signIn.title': 'وحدة تحكم Portcullis', 'signIn.email': 'البريد الإلكتروني', 'signIn.password': 'كلمة المرور', 'signIn.code': 'الرمز من تطبيق المصادقة (أو رمز استرداد)',
    'signIn.submit': 'تسجيل الدخول', 'signIn.busy': 'جارٍ تسجيل الدخول…', 'signIn.hint': 'يحصل المشغلون على كلمة المرور من المسؤول (وحدة التحكم أو npm run admin -- user create).',
    'unsaved.leave': 'لديك تغييرات غير محفوظة. هل تريد مغادرة هذه الصفحة وفقدانها؟',
    'payments.cardLast4': "آخر 4 أرقام من البطاقة",
    'payments.cardFirst6': "أول 6 أرقام من البطاقة",
    'payments.email': "بريد الدافع",
    'payments.order': "معرّف الطلب",
    'payments.more': "مرشحات أخرى",
    'payments.search': "بحث",
    'payments.clear': "مسح",
    'payments.export': "تصدير CSV",
    'payments.exporting': "جارٍ التصدير…",
    'payments.none': "لا توجد مدفوعات تطابق هذه المرشحات.",
    'payments.loadMore': "تحميل المزيد",
    'col.created': "تاريخ الإنشاء",
    'col.merchant': "التاجر",
    'col.order': "الطلب",
    'col.status': "الحالة",
    'col.amount': "المبلغ",
    'col.card': "البطاقة",
    'col.payer': "الدافع",
    'col.method': "الطريقة",
  },
  tr: {
    ...SCREENS['tr'],
    ...AREAS['tr'],
    'shell.skip': 'İçeriğe geç', 'shell.menu': 'Menü', 'shell.signOut': 'Çıkış yap', 'shell.language': 'Dil', 'shell.theme': 'Tema',
    'shell.themeSystem': 'Sistem', 'shell.themeLight': 'Açık', 'shell.themeDark': 'Koyu', 'shell.mode': 'Anahtarlar', 'shell.modeAll': 'Test ve canlı', 'shell.modeTest': 'Yalnız test', 'shell.modeLive': 'Yalnız canlı', 'shell.shortcuts': 'Klavye kısayolları', 'shell.close': 'Kapat',
    'shell.noPage': 'Böyle bir sayfa yok.', 'nav.label': 'Konsol', 'nav.home': 'Ana sayfa', 'nav.payments': 'Ödemeler', 'nav.attention': 'İlgi bekleyenler',
    'nav.merchants': 'Üye işyerleri', 'nav.risk': 'Risk', 'nav.disputes': 'İtirazlar', 'nav.callbacks': 'Bildirimler', 'nav.money': 'Para',
    'nav.reconciliation': 'Mutabakat', 'nav.users': 'Kullanıcılar ve anahtarlar', 'nav.audit': 'Denetim kaydı',
    'keys.search': 'Ara (ekranın araması ya da ödeme araması)', 'keys.goHome': 'Ana sayfaya git', 'keys.goPayments': 'Ödemelere git', 'keys.goMerchants': 'Üye işyerlerine git',
    'keys.goCallbacks': 'Bildirimlere git', 'keys.goDisputes': 'İtirazlara git', 'keys.goAudit': 'Denetim kaydına git', 'keys.help': 'Bu kısayolları göster', 'keys.then': 'sonra',
    'signIn.title': 'Portcullis konsolu', 'signIn.email': 'E-posta', 'signIn.password': 'Parola', 'signIn.code': 'Doğrulama uygulamanızdaki kod (ya da bir kurtarma kodu)',
    'signIn.submit': 'Giriş yap', 'signIn.busy': 'Giriş yapılıyor…', 'signIn.hint': 'Operatörler parolalarını bir yöneticiden alır (konsol ya da npm run admin -- user create).',
    'unsaved.leave': 'Kaydedilmemiş değişiklikler var. Bu sayfadan çıkıp bunları kaybetmek istiyor musunuz?',
    'payments.cardLast4': "Kartın son 4 hanesi",
    'payments.cardFirst6': "Kartın ilk 6 hanesi",
    'payments.email': "Ödeyenin e-postası",
    'payments.order': "Sipariş no",
    'payments.more': "Diğer filtreler",
    'payments.search': "Ara",
    'payments.clear': "Temizle",
    'payments.export': "CSV dışa aktar",
    'payments.exporting': "Dışa aktarılıyor…",
    'payments.none': "Bu filtrelere uyan ödeme yok.",
    'payments.loadMore': "Daha fazla yükle",
    'col.created': "Oluşturulma",
    'col.merchant': "Üye işyeri",
    'col.order': "Sipariş",
    'col.status': "Durum",
    'col.amount': "Tutar",
    'col.card': "Kart",
    'col.payer': "Ödeyen",
    'col.method': "Yöntem",
  },
};

const STORAGE_KEY = 'portcullis.console.language';

/**
 * The operator's language: their choice in this browser, else English. Not the browser's own: most of each screen's
 * text is English yet, and a console half in the browser's language is harder to read than one in English.
 */
export function initialLanguage(): Language {
  const stored = safeStorage()?.getItem(STORAGE_KEY);
  return stored && (LANGUAGES as readonly string[]).includes(stored) ? (stored as Language) : 'en';
}

export function rememberLanguage(language: Language): void {
  safeStorage()?.setItem(STORAGE_KEY, language);
  applyLanguage(language);
}

/** The document's lang and dir follow the language. */
export function applyLanguage(language: Language): void {
  document.documentElement.lang = language;
  document.documentElement.dir = language === 'ar' ? 'rtl' : 'ltr';
}

export function safeStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

export type Translate = (key: Key) => string;
export const translatorFor = (language: Language): Translate => (key) => CATALOGS[language][key] ?? EN[key];

export const LanguageContext = createContext<{ language: Language; t: Translate; setLanguage: (l: Language) => void }>({
  language: 'en', t: translatorFor('en'), setLanguage: () => undefined,
});

export const useT = (): Translate => useContext(LanguageContext).t;

/** A text with {placeholders} filled: fill(t('home.lastDays'), { n: 7 }). A placeholder not given stays as it is. */
export const fill = (text: string, values: Readonly<Record<string, string | number>>): string =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
