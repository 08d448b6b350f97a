// Spanish. Regular-expression sources, matched case-insensitively between word edges.
// Questions open with "¿", which is no letter, so phrases may start with it.

import type { Lexicon } from './lexicon-types.js';

const MONTH = '(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)';
const WEEKDAY = '(?:lunes|martes|miércoles|jueves|viernes|sábado|domingo)';

export const SPANISH: Lexicon = {
  language: 'es',
  stopwords: [
    'el', 'los', 'las', 'del', 'al', 'lo', 'una', 'su', 'sus', 'está', 'están', 'muy', 'pero', 'como', 'más', 'este', 'esta',
    'estos', 'estas', 'hola', 'gracias', 'saludos', 'usted', 'ustedes', 'hemos', 'han', 'sobre', 'hasta', 'desde', 'también',
    'ya', 'cuando', 'qué', 'cómo', 'por', 'para', 'con', 'tu', 'tus', 'nuestro', 'nuestra', 'puedes', 'podría', 'necesito',
    'estimado', 'estimada', 'atentamente', 'día', 'mañana', 'hoy', 'os', 'vuestro', 'ha', 'sin', 'ni', 'muchas', 'todo', 'todos',
  ],
  letters: 'ñ¿¡áíóú',
  phrases: {
    urgent_wording: ['urgente', 'cuanto antes', 'lo antes posible', 'inmediatamente', 'de inmediato', 'prioridad alta', 'importante:'],
    impact_wording: [
      'caída del (?:servicio|servidor|sistema)', '(?:se ha|se han|está|están) caído?s?', 'no funciona(?:n)?', 'rot[oa]s?', 'bloquead[oa]s?', 'fuera de servicio',
      'fallo de seguridad', 'brecha de seguridad', 'incidente de seguridad', 'problema de seguridad', 'fuga de datos', 'comprometid[oa]s?',
    ],
    softener_wording: [
      'sin prisa', 'no (?:hay|corre) prisa', 'no es urgente', 'sin urgencia', 'cuando (?:puedas|pueda|tengas tiempo|tenga tiempo|te venga bien|le venga bien)',
      'cuando tengas un (?:momento|rato|minuto)', 'cuando tenga un (?:momento|rato|minuto)', 'a tu conveniencia', 'a su conveniencia',
    ],
    invoice: ['factura', 'número de factura', 'recibo de (?:la )?(?:luz|agua|gas)'],
    payment_due: [
      'importe pendiente', 'pago pendiente', 'fecha de vencimiento', 'vence el', 'recordatorio de pago', 'pendiente de pago', 'está(?: aún)? pendiente',
      'abone (?:el|la)', 'realice el pago',
    ],
    receipt: [
      'recibo', 'justificante de pago', 'hemos recibido (?:el|tu|su) pago', 'pago (?:recibido|confirmado|realizado)', 'gracias por (?:tu|su) (?:compra|pedido|pago)',
      'total pagado',
    ],
    order_or_shipping: [
      '(?:tu|su) pedido', 'número de pedido', 'pedido (?:n[º.o]\\s?)?\\d+', 'ha sido enviado', 'ya está en camino', 'número de seguimiento', 'seguir el envío',
      'transportista', 'entrega (?:estimada|prevista)', 'confirmación de (?:reserva|pedido|compra)', 'localizador', 'tarjeta de embarque', 'billete electrónico',
    ],
    subscription_or_trial: [
      '(?:tu|su) suscripción se (?:renovará|renueva)', 'renovación automática', 'se renovará automáticamente', '(?:periodo|período) de prueba (?:termina|finaliza|acaba)',
      '(?:tu|su) plan se renovará',
    ],
    meeting_invitation: [
      'te ha invitado a una reunión', 'le ha invitado a una reunión', 'invitación:', 'invitación a (?:una |la )?(?:reunión|llamada)', 'convocatoria',
      '¿asistirás\\?', 'sí\\s*-\\s*quizás\\s*-\\s*no', 'unirse con google meet', 'unirse a la reunión', 'cambio de hora', 'nueva hora',
      '(?:reunión|comité|llamada|cita)(?: \\S+){0,5} (?:se retrasa|se aplaza|se adelanta|se cancela|cambia)',
      'zoom\\.us/j', 'teams\\.microsoft\\.com/l/meetup', 'meet\\.google\\.com',
    ],
    meeting_scheduling: [
      '¿tienes(?: \\S+){0,3} (?:libre|tiempo|un momento|minutos)', '¿tendrías(?: \\S+){0,3} (?:libre|tiempo|minutos)', '¿tiene usted(?: \\S+){0,3} (?:libre|tiempo)',
      '¿nos vemos', 'qué (?:hora|día) te viene', 'me vendría bien', 'le viene (?:bien|mejor)',
      'concertar una (?:reunión|cita|llamada)', 'agendar una (?:reunión|llamada)', 'una llamada rápida', '¿(?:estás|está usted|estáis) disponibles?',
    ],
    unsubscribe_link: [
      'dar(?:se|te) de baja', 'date de baja', 'cancelar (?:la )?suscripción', 'gestionar (?:la |tu )?suscripción', 'recibes este (?:correo|boletín|mensaje|email)',
      'si (?:ya )?no (?:quieres|deseas) recibir', 'dejar de recibir', 'preferencias de correo',
    ],
    automated_wording: [
      'generado automáticamente', 'se ha generado automáticamente', 'correo automático', 'mensaje automático', 'no (?:respondas|responda) a este',
      'preferencias de notificación', 'alerta de seguridad', 'nuevo inicio de sesión', '(?:compilación|ejecución|prueba)(?: \\S+){0,3} (?:ha )?fallad[oa]',
      'ha fallado', 'te ha (?:asignado|añadido|mencionado)', 'ha comentado', 'código de verificación', 'contraseña (?:se ha )?(?:cambiado|modificado)',
    ],
    promotional_wording: [
      'rebajas', 'descuentos?', 'hasta (?:un |el )?\\d{1,2}\\s?%', '\\d{1,2}\\s?% de descuento', 'ofertas', 'oferta (?:especial|exclusiva|limitada)', 'envío gratis',
      'compra ya', 'cómpralo', 'ahórrate', 'ahorra', 'código promocional', 'cupón', 'solo hasta', 'últimas unidades', 'black friday', 'gratis',
    ],
    event_promotion: [
      'webinar(?:io)?s?', 'seminario web', 'reserva tu plaza', 'plazas limitadas', 'inscríbete', 'inscripción gratuita', '(?:tu|mi) entrada', 'entradas',
      'ponentes', 'feria', 'congreso', 'talleres', 'networking', 'turno de preguntas',
    ],
    newsletter_wording: [
      'boletín', 'newsletter', 'en este número', 'en esta edición', 'edición de', 'leer más', 'buena lectura',
      'resumen semanal', 'novedades', 'leer la (?:carta|noticia) completa', 'os contamos', 'número \\d+', 'nº \\d+',
    ],
    spam_wording: [
      'ha ganado', 'has ganado', 'ganador', 'premio', 'sorteo', 'lotería', 'herencia', 'beneficiario', 'tasa de tramitación', 'confidencial',
      'bitcoin', 'gane dinero', 'gana dinero', 'sin riesgo', 'querido amigo', 'millones de (?:euros|dólares)',
    ],
    account_threat: [
      '(?:cuenta|acceso|buzón)(?: \\S+){0,3} (?:ha sido |será |se )?(?:bloquead[oa]|suspendid[oa]|cancelad[oa]|desactivad[oa]|suspenderá|cancelará)',
      'bloqueado temporalmente', 'en (?:24|48|72) horas', 'acceso no autorizado', 'actividad inusual', 'se suspenderá',
    ],
    fyi_wording: [
      'para (?:tu|su) información', 'solo para que lo sepas', '(?:os|les|le|te) informamos', 'te informo', 'no (?:es necesario|hace falta) hacer nada',
      'no tienes que hacer nada', 'no hace falta que (?:respondas|contestes)', 'para que estéis al tanto', 'a título informativo', 'seguiremos vigilando',
    ],
    welcome_announcement: [
      'dar(?:le|les)? la bienvenida', 'damos la bienvenida', '¡bienvenid[oa]', 'se incorpora', 'nos alegra anunciar',
      'acompañad(?:me|nos)',
    ],
  },
  requests: [
    '¿puedes', '¿podrías', '¿podría(?:s)?', '¿puede(?: usted)?', 'por favor', 'le agradecería', 'os agradecería', 'necesito que',
    'necesitamos que', 'quedo a la espera', '¿me (?:confirmas|dices|envías|mandas|pasas)', 'avísame', 'confírmame', 'envíame', 'mándame',
    '¿nos (?:confirma|puede|podría)', 'espero (?:tu|su) respuesta',
  ],
  not_requests: ['no (?:respondas|responda) a este', 'acompañad(?:me|nos) en', 'por favor,? no respond'],
  reader: ['tú', 'te', 'tu', 'tus', 'ti', 'usted', 'ustedes', 'le', 'os', 'vosotros', 'puedes', 'podrías', 'tienes', 'tendrías', 'quieres', 'sabes', 'nos'],
  credentials: {
    login: ['inici[ae] (?:la )?sesión', 'iniciar sesión', 'acced[ae]', 'acceder', 'identifíquese', 'entr[ae] en (?:su|tu) cuenta'],
    secret: ['contraseña', 'clave', 'datos de acceso', 'credenciales', 'pin', 'datos bancarios'],
    ask: ['confirm[ae]', 'confirmar', 'verifi(?:que|ca|car)', 'introduzca', 'introduce', 'actualiz[ae]', 'actualizar', 'desbloquear(?:la|lo)?', 'valid[ae]'],
  },
  deadline: {
    markers: ['antes del?', 'a más tardar(?: el)?', 'hasta el', 'fecha límite(?::)?', 'plazo(?: hasta)?(?: el)?', 'vence(?: el)?', 'para el', 'para', 'vencid[ao]s? desde el'],
    dates: [
      'hoy', 'pasado mañana', 'mañana', `(?:este |el próximo )?${WEEKDAY}(?: \\d{1,2}(?: de ${MONTH})?)?`, 'fin de (?:semana|mes)', 'final de(?: la)? semana', 'la semana que viene', 'esta semana',
      `\\d{1,2} de ${MONTH}(?: de \\d{4})?`, '\\d{1,2}/\\d{1,2}(?:/\\d{2,4})?', 'mediodía', 'las \\d{1,2}(?::\\d{2})?',
    ],
    times: ['a las \\d{1,2}(?:[:.]\\d{2})?', 'a mediodía'],
    bare: ['hoy(?: mismo)?', 'esta tarde', 'esta noche', 'pasado mañana'],
  },
  approvals: [
    '¿(?:puedes|podrías|podría|puede usted|me puedes)(?: \\S+){0,2}? (?:aprobar(?:la|lo)?|firmar(?:la|lo)?|validar(?:la|lo)?|pagar(?:la|lo)?|abonar(?:la|lo)?|autorizar(?:la|lo)?)',
    'por favor,? (?:aprueba|apruebe|firma|firme|paga|pague|abona|abone|realiza|realice|autoriza|autorice)', 'necesito que (?:apruebes|firmes|pagues|autorices|valides)',
    'pendiente de (?:tu|su) (?:aprobación|firma)',
  ],
  overdue: ['vencid[ao]s?', 'atrasad[ao]s?', 'impagad[ao]s?', 'pendiente de pago'],
};
