import { describe, expect, it } from 'vitest';
import { detectLanguages } from '../../src/classify/rules/language.js';
import { brandInName, hostsInText, imitatedBrand } from '../../src/classify/rules/lookalike.js';

describe('look-alike domains', () => {
  it.each([
    ['micros0ft-support.com', 'microsoft'],
    ['login.micros0ft-support.com', 'microsoft'],
    ['www.paypal.com.account-review.net', 'paypal'],
    ['netfl1x-pagos.com', 'netflix'],
    ['outl00k-webmail.com', 'outlook'],
    ['arnazon-orders.com', 'amazon'],
    ['paypai.com', 'paypal'],
    ['dhl-parcel-redelivery.info', 'dhl'],
    ['sparkasse-kundenservice.info', 'sparkasse'],
    ['appleid.apple.com.verification-compte.net', 'apple'],
  ])('%s imitates %s', (host, brand) => {
    expect(imitatedBrand(host)).toBe(brand);
  });

  it.each([
    'accounts.google.com',
    'accountprotection.microsoft.com',
    'account.live.com',
    'www.paypal.com',
    'amazon.co.uk',
    'email.amazonses.com',
    'sparkasse-nordholstein.de',
    'contoso.sharepoint.com',
    'startups.example',
    'groups.example',
    'pineapple-recipes.example',
    'example.org',
  ])('%s imitates nothing', (host) => {
    expect(imitatedBrand(host)).toBeNull();
  });

  it('reads brands from display names and hosts from written-out links', () => {
    expect(brandInName('La Banque Postale')).toBe('labanquepostale');
    expect(brandInName('Soporte Netflix')).toBe('netflix');
    expect(brandInName('Bücherhaus Lindner')).toBeNull();
    expect(hostsInText('Log in at https://Login.Example.com/x or www.other.example. Not: mail@host.example')).toEqual([
      'login.example.com',
      'www.other.example',
    ]);
  });
});

describe('language detection', () => {
  it.each([
    ['Could you send me the report by Friday? Thanks for your help with this.', 'en'],
    ['Könnten Sie mir bitte den Bericht bis Freitag schicken? Vielen Dank für Ihre Hilfe.', 'de'],
    ['¿Puedes enviarme el informe antes del viernes? Muchas gracias por tu ayuda.', 'es'],
    ['Pourriez-vous m’envoyer le rapport avant vendredi ? Merci beaucoup pour votre aide.', 'fr'],
    ['', 'en'],
  ])('%s → %s first', (text, language) => {
    expect(detectLanguages(text)[0]).toBe(language);
  });

  it('keeps a second language that is well represented, and only then', () => {
    const bilingual =
      'Bitte prüfen Sie den Vertrag und geben Sie mir bis Freitag Bescheid.\n\nPlease review the contract and let me know by Friday, thank you for your help.';
    expect(detectLanguages(bilingual).sort()).toEqual(['de', 'en']);
    expect(detectLanguages('Bitte prüfen Sie den Vertrag und geben Sie mir bis Freitag Bescheid. Danke!')).toEqual([
      'de',
    ]);
  });
});
