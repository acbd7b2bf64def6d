//go:build unix && !linux && !darwin

package platform

import (
	"errors"
	"net"
)

// PeerCred cannot tell a peer's user on this system: elicitray is made for
// Linux, macOS and Windows, and a connection it cannot verify is refused.
func PeerCred(conn *net.UnixConn) (User, int, error) {
	return User{}, 0, errors.New("peer credentials are not supported on this system")
}
