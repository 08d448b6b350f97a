// French. Regular-expression sources, matched case-insensitively between word edges. French
// puts a space before "?" and "!", and the text's apostrophes are all plain "'" by now.

import type { Lexicon } from './lexicon-types.js';

const MONTH = '(?:janvier|février|mars|avril|mai|juin|juillet|août|septembre|octobre|novembre|décembre)';
const WEEKDAY = '(?:lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)';

export const FRENCH: Lexicon = {
  language: 'fr',
  stopwords: [
    'le', 'les', 'des', 'du', 'et', 'est', 'une', 'pour', 'pas', 'vous', 'nous', 'votre', 'vos', 'notre', 'avec', 'dans', 'sur',
    'qui', 'ce', 'cette', 'ces', 'au', 'aux', 'sont', 'été', 'être', 'avoir', 'merci', 'bonjour', 'cordialement', 'je', 'il',
    'elle', 'ne', 'plus', 'mais', 'ou', 'où', 'très', 'tout', 'tous', 'sera', 'peux', 'pouvez', "j'ai", "c'est", "d'un", "d'une",
    'chers', 'cher', 'madame', 'monsieur', 'bien', 'salut', 'toi', 'ton', 'ta', 'tes', 'leur', 'aussi', 'déjà', 'ici',
  ],
  letters: 'çèêàâœùû',
  phrases: {
    urgent_wording: ['urgent', 'au plus vite', 'dès que possible', 'immédiatement', 'sans délai', 'rapidement', 'prioritaire'],
    impact_wording: [
      'panne', 'hors service', 'ne (?:fonctionne|marche|répond) (?:plus|pas)', 'cassée?s?', 'bloquée?s?', 'planté', 'est down', 'interruption de service',
      'faille de sécurité', 'incident de sécurité', 'problème de sécurité', 'fuite de données', 'compromise?',
    ],
    softener_wording: [
      "pas (?:d'|de )urgence", 'rien (?:de |d\')?urgent', 'pas urgent', 'sans urgence', 'pas pressée?', 'rien ne presse', 'à (?:ta|votre) convenance',
      'quand (?:tu|vous) (?:auras|aurez|as|avez) (?:le |un )?(?:temps|moment|minute)', 'quand (?:tu peux|vous pouvez|ça t\'arrange|cela vous convient)',
    ],
    invoice: ['facture', 'numéro de facture', 'votre facture'],
    payment_due: [
      'montant (?:dû|à régler|restant)', 'date (?:limite de paiement|d\'échéance)', 'échéance', 'relance de paiement', 'rappel de paiement', 'impayée?',
      'reste à payer', 'merci de régler', 'à régler avant',
    ],
    receipt: [
      'reçu', 'paiement (?:reçu|confirmé|accepté)', 'nous avons bien reçu votre paiement', 'merci pour votre (?:commande|achat|paiement)', 'justificatif de paiement',
      'prix total', 'montant total',
    ],
    order_or_shipping: [
      'votre commande', 'commande n[°o]\\s?\\d+', 'numéro de commande', 'a été expédiée', 'est en route', 'numéro de suivi', 'suivre (?:mon|votre) colis',
      'transporteur', 'livraison (?:estimée|prévue)', 'confirmation de (?:votre )?(?:réservation|commande)', 'référence de (?:dossier|réservation)', 'e-billets?',
      'carte d\'embarquement',
    ],
    subscription_or_trial: [
      'abonnement (?:sera|est) renouvelé', 'période d\'essai (?:se termine|expire|prend fin)', 'votre essai gratuit',
      'reconduction tacite',
    ],
    meeting_invitation: [
      'vous a invitée? à une réunion', 'invitation ?:', 'invitation à (?:une |la )?(?:réunion|visio|point)', 'rejoindre la réunion',
      'accepter\\s*\\|?\\s*(?:provisoire|peut-être)\\s*\\|?\\s*refuser', 'convocation', 'point d\'avancement', 'nouvel horaire',
      '(?:réunion|point|rendez-vous|comité|call)(?: \\S+){0,5} (?:est |a été )?(?:décalée?|reportée?|déplacée?|annulée?|avancée?)',
      'zoom\\.us/j', 'teams\\.microsoft\\.com/l/meetup', 'meet\\.google\\.com',
    ],
    meeting_scheduling: [
      'seriez-vous disponible', 'êtes-vous disponible', 'es-tu dispo(?:nible)?', 'fixer un (?:rendez-vous|créneau|point)', 'prendre rendez-vous', 'un créneau',
      'quand (?:vous|tu) (?:seriez|serais) disponible',
      'organiser un (?:point|appel|échange)', 'un (?:petit )?appel',
    ],
    unsubscribe_link: [
      'se désabonner', 'désabonnez-vous', 'se désinscrire', 'vous désinscrire', 'désinscription', 'vous recevez (?:ce|cet|cette) (?:e-?mail|message|lettre|newsletter)',
      'ne (?:souhaitez )?plus recevoir', 'gérer (?:mes|vos) (?:abonnements|préférences)',
    ],
    automated_wording: [
      'envoyé automatiquement', 'généré automatiquement', 'message automatique', 'merci de ne pas (?:y )?répondre', 'ne pas répondre',
      'paramètres de notification', 'préférences de notification', 'connexion inhabituelle', 'nouvelle connexion', 'alerte de sécurité',
      '(?:pipeline|build|job|compilation)(?: #?\\d+)? a échoué', 'échec du (?:pipeline|build|job)', 'job en échec', 'vous a (?:mentionnée?|assignée?|ajoutée?)',
      'a commenté', 'nouveau message', 'code de vérification', 'mot de passe (?:a été )?(?:modifié|changé)',
    ],
    promotional_wording: [
      'soldes', 'promo(?:tion)?s?', 'réductions?', 'remise', '-\\s?\\d{1,2}\\s?%', '\\d{1,2}\\s?% de réduction', 'livraison (?:offerte|gratuite)',
      'offre (?:spéciale|exclusive|limitée)', 'profitez-en', 'découvre(?:z)? (?:les|nos) offres', 'code promo',
      'black friday', 'stocks limités', 'gratuit(?:ement)?',
    ],
    event_promotion: [
      'webinaires?', 'webinars?', "je m'inscris", 'inscrivez-vous', 'inscription gratuite', 'places limitées', 'badge gratuit', 'salon', 'exposants',
      'conférences', 'ateliers', 'replay', 'en direct', 'ne manquez pas',
    ],
    newsletter_wording: [
      'newsletter', 'lettre d\'information', 'au sommaire', '(?:dans )?ce numéro', 'édition', 'lire la suite', 'bonne lecture',
      'l\'article complet', 'ce mois-ci', 'n° \\d+',
    ],
    spam_wording: [
      'vous avez gagné', 'gagnant', 'loterie', 'héritage', 'bénéficiaire', 'don de ma fortune', 'fortune', 'veuve', 'que dieu vous bénisse', 'cher ami',
      'frais de dossier', 'bitcoin', 'sans risque', 'confidentiel', 'personne de confiance', 'millions d\'(?:euros|dollars)', '\\d[\\d  ]{0,12} euros',
    ],
    account_threat: [
      '(?:compte|accès|identifiant)(?: \\S+){0,3} (?:a été |sera |est )?(?:définitivement |temporairement )?(?:verrouillé|suspendu|bloqué|désactivé|fermé|supprimé)',
      'dans les (?:24|48|72) heures', 'à défaut', 'activité (?:suspecte|inhabituelle) sur votre', 'politique de sécurité',
    ],
    fyi_wording: [
      'pour information', 'pour info', 'pour votre information', 'à titre d\'information', 'aucune action n\'est (?:requise|nécessaire)', 'rien à faire',
      'petit point rapide', 'je (?:te|vous) tiens (?:au courant|informée?)', 'pour rappel',
    ],
    welcome_announcement: [
      'le plaisir de vous annoncer', 'réserver le meilleur accueil', 'bienvenue à', 'rejoint (?:aujourd\'hui )?(?:l\'équipe|le pôle|notre équipe)',
      'souhaitons la bienvenue', 'souhaiter la bienvenue',
    ],
  },
  requests: [
    'pourriez-vous', 'pouvez-vous', 'peux-tu', 'pourrais-tu', 'tu peux', 'tu pourrais', 'merci de', 'je vous remercie de', 'veuillez', "j'aurais besoin",
    'nous aurions besoin', 'est-ce que (?:tu|vous) (?:peux|pouvez|pourrais|pourriez)', 'dites-moi', 'svp', "s'il (?:vous|te) plaît",
    'merci d\'avance', 'je compte sur (?:toi|vous)', 'à valider', 'en attente de (?:ta|votre) (?:réponse|validation)',
  ],
  not_requests: ['merci de ne pas', 'ne pas répondre', 'réserver le meilleur accueil', 'merci de votre (?:compréhension|confiance)'],
  reader: ['vous', 'tu', 'te', "t'\\p{L}+", 'toi', 'ton', 'ta', 'tes', 'votre', 'vos'],
  credentials: {
    login: ['connectez-vous', 'vous connecter', 'identifiez-vous', 'vous identifier', 'connexion', 'se connecter'],
    secret: ['mot de passe', 'identifiants?', 'codes? d\'accès', 'coordonnées bancaires', 'numéro de carte', 'données de connexion'],
    ask: ['confirme[rz]', 'vérifie[rz]', 'saisi(?:r|ssez)', 'mettre à jour', 'mettez à jour', 'valide[rz]', 'déverrouiller', 'réactiver'],
  },
  deadline: {
    markers: ['avant(?: le)?', "d'ici(?: le)?", 'au plus tard(?: le)?', 'date limite(?: :)?', "jusqu'au", 'pour le', 'pour', 'échéance(?: :)?'],
    dates: [
      "aujourd'hui", 'demain(?: midi| matin| soir)?', `${WEEKDAY}(?: \\d{1,2})?(?: soir| matin| midi)?`, 'la fin de (?:la semaine|du mois)', 'fin (?:de semaine|du mois)',
      'la semaine prochaine', 'cette semaine', 'midi', `\\d{1,2}(?:er)? ${MONTH}(?: \\d{4})?`, '\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?', '\\d{1,2} ?h(?: ?\\d{2})?',
    ],
    times: ['(?:à )?\\d{1,2} ?h(?: ?\\d{2})?', '(?:à )?midi'],
    bare: ["aujourd'hui", 'ce soir', 'après-demain', 'demain(?: matin| midi| soir)?'],
  },
  approvals: [
    'merci de (?:valider|approuver|signer|régler|payer|procéder au (?:paiement|règlement))', 'veuillez (?:valider|approuver|signer|régler|payer)',
    '(?:peux-tu|pourrais-tu|pouvez-vous|pourriez-vous)(?: \\S+){0,2}? (?:valider|approuver|signer|régler|payer)', '(?:pour|en attente de) (?:ta|votre) (?:validation|signature)',
  ],
  overdue: ['en retard', 'impayée?s?', 'échue?s?', 'relance'],
};
