// When a clear data connection sends MODE E blocks of a regular file with sendfile(2) ([storage]
// sendfile, docs/STORAGE.md "Sending"). Kept apart from file_send.hpp so the configuration, which
// names the choice, does not pull in the event loop (the fuzz build parses configs without it).
#pragma once

namespace gridftp::transport {

// To a peer on another host the NIC reads the page-cache pages and sendfile saves a copy. To a
// peer on this host (loopback, or our own address) the receiver's copy out of the socket reads
// those pages itself, cold in the CPU caches, and a receiver that is the bound (globus-url-copy
// writing a file uses a whole core) moves fewer bytes per second than when the sender copies the
// file through a buffer the receiver then finds in the shared cache (bench/README.md, "sendfile
// to a peer on this host"). Stream mode sends the same way (its copy in slices of
// kClearSliceBytes with MSG_MORE, bench/README.md "Stream mode and the checksum's slice").
enum class SendfileUse { OtherHosts, Always, Never };

}  // namespace gridftp::transport
