// English. Regular-expression sources, matched case-insensitively between word edges.

import type { Lexicon } from './lexicon-types.js';

const MONTH = '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const WEEKDAY = '(?:mon|tues|wednes|thurs|fri|satur|sun)day';

export const ENGLISH: Lexicon = {
  language: 'en',
  stopwords: [
    'the', 'and', 'you', 'your', 'is', 'are', 'to', 'of', 'with', 'for', 'this', 'that', 'we', 'have', 'be', 'it',
    'our', 'at', 'from', 'not', 'can', 'please', 'thanks', 'would', 'could', 'been', 'has', 'what', 'which', 'if',
    'by', 'my', 'any', 'hello', 'dear', 'will', 'just', 'about', 'they', 'there', 'here', 'who', 'when', 'how',
  ],
  letters: '',
  phrases: {
    urgent_wording: ['urgent', 'asap', 'as soon as possible', 'immediately', 'right away', 'time[- ]sensitive', 'high priority'],
    impact_wording: [
      'outages?', '(?:is|are|went|was|were|goes|has gone|have gone) down', '(?:prod|production|site|server|servers|service|api|database|db) (?:is )?down',
      'broken', '(?:is|are|stopped|not) working', 'not responding', 'crash(?:ed|es|ing)', "(?:we're|we are|i'm|i am|team is|is|are) blocked", 'blocking (?:us|the|our|me)',
      'security (?:incident|issue|breach|hole|vulnerability|problem)', 'data (?:breach|loss|leak)', 'breached', 'compromised',
    ],
    softener_wording: [
      'no rush', 'no hurry', 'not urgent', 'no urgency', 'low priority', 'not (?:a )?priority', 'at your (?:convenience|leisure)',
      'whenever you (?:get|have) (?:a |the )?(?:chance|moment|minute|sec|second|time)', 'whenever (?:you can|suits you|it suits you|works for you)',
      'when you (?:get|have) (?:a |the )?(?:chance|moment|minute|sec|second|time)', "when(?:ever)? you(?:'re| are) free", 'no need to hurry', 'take your time',
    ],
    invoice: ['invoice', 'billing statement', 'statement is (?:now )?available'],
    payment_due: [
      '(?:amount|balance|payment) due', 'due (?:by|date|on)', 'pay (?:the |this |your )?(?:invoice|bill|balance)', 'past due',
      'overdue', 'submit payment', 'payment (?:is )?(?:required|reminder)',
    ],
    receipt: [
      'receipt', 'payment (?:received|confirmation|successful)', 'thank you for your (?:order|purchase|payment)',
      "we(?:'ve| have) received your payment",
    ],
    order_or_shipping: [
      'order (?:confirmation|#|number|no\\.?)', 'your order', '(?:has|have) (?:been )?shipped', 'out for delivery',
      'tracking number', 'shipment', 'booking (?:confirmation|reference)', 'reservation (?:is )?confirmed', 'e-?tickets?',
      'itinerary', 'track your (?:package|parcel|order)',
    ],
    subscription_or_trial: [
      'trial (?:ends|expires|expiring|period)', 'subscription (?:will renew|renews|expires|has been renewed)', 'renewal notice',
      'your plan (?:will|has)',
    ],
    meeting_invitation: [
      '(?:invitation|invite) (?:to|for) (?:a |an |the |our )?(?:\\w+ )?(?:meeting|call|sync|review|interview|session|workshop)',
      'join (?:the )?(?:zoom|teams|google meet|webex)(?: meeting| call)?', 'zoom\\.us/j', 'teams\\.microsoft\\.com/l/meetup',
      'meet\\.google\\.com', 'meeting (?:request|invite|invitation)', 'calendar invit\\w*', 'has invited you to (?:a |an )?(?:meeting|event|call)',
      'accept\\s*\\|?\\s*(?:tentative|maybe)\\s*\\|?\\s*decline', 'going\\? yes', 'updated invit(?:e|ation)',
      '(?:moved|moves|rescheduled|postponed|pushed)(?: \\S+){0,3} (?:to|from) (?:' + WEEKDAY + '|tomorrow|next week|\\d{1,2}(?::\\d{2})?)',
    ],
    meeting_scheduling: [
      '(?:schedule|set up|book|arrange) (?:a |an )?(?:meeting|call|time|chat|sync|1:1|one-on-one)', '(?:are you|would you be) (?:free|available)',
      'what time works', 'available times', 'choose a (?:day|date|time)', 'find a time', 'do you have (?:\\d+|a few|some) minutes',
      'when suits you', 'a quick call', 'catch up', 'works? for you\\?',
    ],
    unsubscribe_link: [
      'unsubscribe', 'opt[- ]out', 'manage (?:your )?(?:email )?(?:preferences|subscriptions?)', 'email preferences',
      'update your preferences', "you(?:'re| are) (?:receiving|getting) this", 'you received this (?:email|message)',
      'no longer wish to receive',
    ],
    automated_wording: [
      'this is an automated', 'automatically generated', 'do not reply to this (?:e-?mail|message)', '(?:e-?mail|message) was sent automatically',
      'receiving this notification', 'notification settings', 'security alert', 'new sign-?in', 'sign-?in attempt',
      'password (?:was|has been) (?:changed|reset)', 'verification code', 'one-time (?:pass)?code', 'build (?:failed|passed|succeeded)',
      'pipeline (?:failed|passed|succeeded)', 'run failed', 'commented on', 'mentioned you', 'assigned (?:you|to you)', 'pull request',
      'merge request', 'status (?:changed|update)', 'manage \\S+ notifications',
    ],
    promotional_wording: [
      '\\d{1,2}% off', 'up to \\d{1,2}%', 'sale', 'discount', 'coupon', 'promo code', 'limited[- ]time', 'exclusive offer', 'special offer',
      'free (?:shipping|delivery)', 'shop (?:now|the sale)', 'buy now', 'order now', 'save (?:another )?\\$?\\d+%?', 'best prices?',
      'offer ends', 'last chance', "don't miss out", 'upgrade (?:now|today)', 'clearance', 'flash sale', 'new arrivals',
      'black friday', 'cyber monday', 'early[- ]bird', 'free trial', 'try it free',
    ],
    event_promotion: [
      'webinars?', 'live demo', 'save your (?:seat|spot)', 'reserve your (?:seat|spot)', 'register (?:now|today|for free|anyway|here)',
      'seats are limited', 'limited (?:seats|places)', 'get your (?:ticket|pass)', 'early[- ]bird (?:passes|tickets|price)', 'keynotes?',
      '\\d+\\+? (?:talks|speakers|sessions|exhibitors)', 'hands-on workshops', 'conference', 'summit', 'the recording',
      'on-demand', 'trade (?:show|fair)',
    ],
    newsletter_wording: [
      'newsletter', 'digest', '(?:weekly|monthly) (?:roundup|update|recap)', 'this week in', 'issue #?\\d+', 'read more', 'read the full',
      'read online', 'view (?:this email )?in (?:your )?browser', 'top stories', "editor'?s? (?:note|picks)", 'in this issue',
      'highlights from', 'your (?:past|last) week', 'edition',
    ],
    spam_wording: [
      "you(?:'ve| have) (?:won|been selected)", 'winner', 'claim your (?:prize|reward|money|funds)', 'lottery', 'inheritance',
      'beneficiary', 'wire transfer', 'western union', 'bitcoin', 'crypto(?:currency)? (?:investment|opportunity)',
      'million (?:dollars|usd)', '100% free', 'risk[- ]free', 'act now', 'urgent (?:reply|response) needed',
      'congratulations!? you', 'dear (?:friend|beneficiary|winner)', 'double your (?:money|income)', 'make money fast', 'viagra',
      'casino', 'processing fee', 'next of kin', 'trusted (?:foreign )?partner', 'abandoned (?:sum|funds)', 'deceased client',
    ],
    account_threat: [
      '(?:account|mailbox) (?:will be |has been |is )?(?:permanently )?(?:suspended|locked|deactivated|disabled|closed|limited)',
      '(?:limited|locked|suspended|blocked) your account', 'verify your (?:account|identity) (?:now|immediately)',
      'within (?:24|48|72) hours', 'will be (?:rejected|deleted)', 'permanently (?:closed|deleted|disabled)',
      'unusual activity on your', 'storage limit', 'mailbox (?:is full|has reached)',
    ],
    fyi_wording: [
      'fyi', 'for your (?:information|reference|records)', 'heads[- ]up', 'just (?:a quick )?(?:note|update)', 'quick update',
      'just letting you know', 'just wanted (?:you|to let you) (?:to )?know', 'no action (?:is )?(?:needed|required)',
      'no need to (?:reply|respond)', 'keeping you in the loop', 'for awareness', "i'll keep an eye on",
    ],
    welcome_announcement: [
      'join me in (?:welcoming|congratulating|thanking)', 'please welcome', 'welcome aboard', 'joins (?:the|our) \\S+ team',
      "(?:i'm|i am|we're|we are) (?:happy|pleased|delighted|excited|thrilled) to (?:announce|share|welcome)",
    ],
  },
  requests: [
    '(?:please|pls|kindly)(?: \\w+){0,2}? (?:review|approve|sign|send|confirm|reply|respond|let|get back|complete|fill|submit|update|check|call|schedule|book|pay|consider|provide|share|take|look|advise|forward|prepare|fix|join|choose|pick|decide|read|verify|rsvp|register|return|make|add|remove|give|upload|put|draft|write|arrange|reset|transfer|settle|release|sign off)',
    '(?:could|can|would|will) you', 'would you mind', '(?:i|we) need (?:you|your)', 'action (?:is )?required',
    '(?:need|require|awaiting) your (?:input|approval|feedback|signature|help|review|decision|response|reply|answer)',
    'let me know', 'would you like to', "(?:i'd|i would) appreciate (?:it )?if you", 'are you able to', "don't forget to",
    'make sure (?:to|you)',
  ],
  not_requests: [
    'do not reply', 'please do not', 'join me in (?:welcoming|congratulating|thanking)', 'please welcome', 'let us know if you have any questions',
  ],
  reader: ['you', 'your'],
  credentials: {
    login: ['sign[- ]?in', 'log[- ]?in', 'login'],
    secret: ['password', 'passcode', 'credentials', 'bank details', 'pin'],
    ask: ['confirm', 'verify', 'validate', 'enter', 'update', 're-?enter', 'restore', 'unlock', 'reactivate'],
  },
  deadline: {
    // A bare "due" takes no colon: "Amount Due: $40" names an amount, "Due by: May 3" a date.
    markers: ['by', 'before', 'due (?:by|on|date)', 'no later than', 'until', 'deadline(?: is)?', 'expires?(?: on)?', 'ends? (?:on|in)', 'due(?=\\s)'],
    dates: [
      'today', 'tonight', 'tomorrow', 'eod', 'cob', 'end of (?:the )?(?:day|week|month|quarter)',
      `(?:this |next )?${WEEKDAY}(?:,? (?:${MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?(?:,? \\d{4})?|\\d{1,2}(?:st|nd|rd|th)? (?:of )?${MONTH}(?: \\d{4})?))?`,
      'next week', 'this week', 'noon', 'midnight', `${MONTH}\\.? \\d{1,2}(?:st|nd|rd|th)?(?:,? \\d{4})?`, `\\d{1,2}(?:st|nd|rd|th)? (?:of )?${MONTH}(?: \\d{4})?`,
      '\\d{4}-\\d{2}-\\d{2}', '\\d{1,2}[/.]\\d{1,2}(?:[/.]\\d{2,4})?', '\\d{1,2}(?::\\d{2})?\\s?(?:am|pm)', '\\{\\{ ?\\w+ ?\\}\\}', '\\d+ (?:days?|hours?|weeks?)',
    ],
    times: ['(?:at )?\\d{1,2}(?::\\d{2})?\\s?(?:am|pm|a\\.m\\.|p\\.m\\.)', '(?:at )?noon', 'at \\d{1,2}:\\d{2}'],
    bare: ['today', 'tonight', 'tomorrow', 'eod', 'cob', 'end of (?:the )?day'],
  },
  approvals: [
    '(?:please|pls|kindly|could you|can you|would you)(?: \\w+){0,2}? (?:approve|sign off|sign|pay|settle|release|authori[sz]e|countersign)',
    '(?:need|awaiting|require) your (?:approval|sign-?off|signature|payment)', 'for your (?:approval|signature|sign-?off)',
  ],
  overdue: ['overdue', 'past due', 'was due (?:on|by|last)', 'is now late', 'still (?:open|unpaid|outstanding)'],
};
