/** The language picker: in the portal's header, and on the screens before sign-in (sign-in, invitation). */
import { useId } from 'react';
import { LANGUAGES, LANGUAGE_NAMES, useI18n, type Language } from './i18n';

export function LanguagePicker() {
  const { language, setLanguage, t } = useI18n();
  const id = useId();
  return (
    <span className="prefs">
      <label htmlFor={id}>{t('shell.language')}</label>
      <select id={id} value={language} onChange={(e) => setLanguage(e.target.value as Language)}>
        {LANGUAGES.map((l) => <option key={l} value={l} lang={l}>{LANGUAGE_NAMES[l]}</option>)}
      </select>
    </span>
  );
}
