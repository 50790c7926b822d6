package retryfix

import (
	"github.com/dsqllint/dsqllint/runtime/occ"
	"github.com/dsqllint/dsqllint/runtime/occpgx"
)

// The package already uses dsqllint's runtime: the fix may import it.
var _, _ = occ.ExecCAS, occpgx.ExecCAS
