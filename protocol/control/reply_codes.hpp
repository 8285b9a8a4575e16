// Every reply code the server sends, named once (RFC 959 §4.2.2, RFC 2228, RFC 2428, RFC 3659,
// GFD.20). Handlers use these names, never bare numbers.
#pragma once

namespace gridftp::protocol::control::reply_code {

constexpr int kRestartMarker = 111;     // GFD.20 range marker
constexpr int kPerfMarker = 112;        // GFD.20 performance marker
constexpr int kServiceReadySoon = 120;  // RFC 959: precedes the real greeting
constexpr int kDataAlreadyOpen = 125;
constexpr int kFileStatusOk = 150;
constexpr int kCommandOk = 200;
constexpr int kSuperfluous = 202;
constexpr int kSystemStatus = 211;
constexpr int kDirectoryStatus = 212;
constexpr int kFileStatus = 213;
constexpr int kHelp = 214;
constexpr int kSystemType = 215;
constexpr int kServiceReady = 220;
constexpr int kClosingControl = 221;
constexpr int kClosingData = 226;
constexpr int kEnteringPassive = 227;
constexpr int kEnteringExtendedPassive = 229;
constexpr int kLoggedIn = 230;
constexpr int kSecurityExchangeDone = 234;
constexpr int kSecurityExchangeComplete = 235;  // RFC 2228: ADAT done (GSI)
constexpr int kFileActionOk = 250;
constexpr int kPathCreated = 257;
constexpr int kNeedPassword = 331;
constexpr int kSecurityDataNeeded = 334;
constexpr int kSecurityDataContinue = 335;  // RFC 2228: ADAT=<token>, more to come
constexpr int kPendingFurtherInfo = 350;
constexpr int kServiceNotAvailable = 421;
constexpr int kCannotOpenData = 425;
constexpr int kTransferAborted = 426;
constexpr int kFileUnavailableBusy = 450;
constexpr int kLocalError = 451;
constexpr int kInsufficientStorage = 452;
constexpr int kSyntaxError = 500;
constexpr int kParameterSyntaxError = 501;
constexpr int kNotImplemented = 502;
constexpr int kBadSequence = 503;
constexpr int kParameterNotImplemented = 504;
constexpr int kDirectoryAlreadyExists = 521;  // RFC 959 MKD, as some servers say it
constexpr int kNetworkProtocolNotSupported = 522;
constexpr int kNotLoggedIn = 530;
constexpr int kProtectionDenied = 533;      // cleartext command on a protected channel
constexpr int kIntegrityCheckFailed = 535;  // an ENC/MIC token that does not verify
constexpr int kProtectionLevelDenied = 536;
constexpr int kFileUnavailable = 550;
constexpr int kSafeReply = 631;     // a MIC-wrapped reply line (integrity only)
constexpr int kPrivateReply = 632;  // an ENC-wrapped reply line
constexpr int kPageTypeUnknown = 551;
constexpr int kExceededStorage = 552;
constexpr int kFileNameNotAllowed = 553;

// RFC 959 §4.2 reply classes: the first digit of a code.
constexpr int kClassPositiveCompletion = 2;
constexpr int kClassPositiveIntermediate = 3;

}  // namespace gridftp::protocol::control::reply_code
