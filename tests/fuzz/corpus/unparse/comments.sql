/* block
 comment */ SELECT 1 -- trailing comment
;
